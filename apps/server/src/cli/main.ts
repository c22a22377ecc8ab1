/** Entry of `pnpm pharos …` (see cli.ts). */
import { runWorkerCommand } from "../worker/standalone.ts";
import { runCli } from "./cli.ts";

// `pharos keys list | head` closes the pipe early: that is not a failure worth a stack trace.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(process.exitCode ?? 0);
});

const io = {
  env: process.env,
  stdout: (text: string) => process.stdout.write(text),
  stderr: (text: string) => process.stderr.write(text),
  interactive: process.stderr.isTTY === true,
};
const [command, ...args] = process.argv.slice(2);
// The worker runs until a signal, unlike the one-shot commands of cli.ts.
process.exitCode = command === "worker" ? await runWorkerCommand(args, io) : await runCli(process.argv.slice(2), io);
