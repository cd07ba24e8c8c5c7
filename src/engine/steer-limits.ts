/** Longest steering message, in characters. */
export const MAX_STEER_CHARS = 32 * 1024;
