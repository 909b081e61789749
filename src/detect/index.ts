import { external } from "./external.js";
import { hook } from "./hook.js";
import { idle } from "./idle.js";
import { inputWait } from "./input-wait.js";
import { prompt } from "./prompt.js";
import { repeatEnter } from "./repeat-enter.js";
import { shellIntegration } from "./shell-integration/index.js";

/**
 * Factories of the built-in {@link FrameDetector}s. Each call makes a new
 * detector for one session.
 */
export const detectors = Object.freeze({ shellIntegration, prompt, repeatEnter, hook, idle, external, inputWait });
