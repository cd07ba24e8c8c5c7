/** Exit codes: 0 done, 1 failed or refused, 2 bad usage, 130 cancelled by Ctrl-C or SIGTERM. */
export const Exit = { Ok: 0, Failed: 1, Usage: 2, Interrupted: 130 } as const;
