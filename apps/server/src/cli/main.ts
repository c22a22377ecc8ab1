/** Entry of `pnpm pharos …` (see cli.ts). */
import { runCli } from "./cli.ts";

// `pharos keys list | head` closes the pipe early: that is not a failure worth a stack trace.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(process.exitCode ?? 0);
});

process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
