/** The CLI's two ways to fail, shared by the commands' modules. */

/** Bad arguments: exit code 2, with a pointer to the command's help. */
export class UsageError extends Error {}
/** A well-formed command that cannot be done (unknown id, database unreachable, a gate missed): exit code 1. */
export class CommandError extends Error {}
