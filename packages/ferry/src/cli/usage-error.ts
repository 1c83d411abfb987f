// A command line used wrongly (a missing or bad argument): the command prints the message and exits 2, where a
// failure of the work itself exits 1.
export class UsageError extends Error {}
