/**
 * Session names, one rule for every surface (library, `k`, HTTP, tools):
 * `[A-Za-z0-9_.-]`, 1 to 128 characters, not only dots, never `..` (a name
 * becomes part of paths and URLs). Dependency-free, so the fast-start `k`
 * client loads it too.
 */

/** Longest session name. */
export const MAX_SESSION_NAME_LENGTH = 128;

/** The characters a session name is made of. */
export const SESSION_NAME_CHARACTERS = /^[A-Za-z0-9_.-]+$/;

/** The rule in words, for error messages. */
export const SESSION_NAME_RULE = `[A-Za-z0-9_.-]+ (at most ${MAX_SESSION_NAME_LENGTH} characters, not only dots, no "..")`;

/** True when `name` is a valid session name. */
export function isValidSessionName(name: unknown): name is string {
  return (
    typeof name === "string" &&
    name.length <= MAX_SESSION_NAME_LENGTH &&
    SESSION_NAME_CHARACTERS.test(name) &&
    !name.includes("..") &&
    /[^.]/.test(name)
  );
}
