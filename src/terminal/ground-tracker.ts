/** Where the tracker is in the escape sequence grammar (a subset of xterm.js's VT500 parser states). */
const enum State {
  Ground,
  Escape,
  EscapeIntermediate,
  /** CSI entry, parameters, intermediates or an ignored CSI: all end the same way here. */
  Csi,
  Osc,
  /** Something the tracker does not follow (DCS, SOS/PM/APC, C1 controls, a scroll region): sticky. */
  Unknown,
}

/**
 * Follows terminal output through the states of an emulator's escape
 * sequence parser (xterm.js's VT500 table), without an emulator, to say for
 * sure when the parser is back in its ground state and the scroll region is
 * still the whole screen: the two conditions under which a burst of plain
 * output may be collapsed to its tail (see `PlainRun`).
 *
 * It is conservative: whatever it does not follow exactly (DCS, SOS, PM and
 * APC strings, C1 controls, non-ASCII characters inside a CSI, any CSI
 * ending in `r`, which sets the scroll region) makes it give up for good
 * ({@link GroundTracker.known} false).
 */
export class GroundTracker {
  #state = State.Ground;

  /** Whether everything scanned so far leaves the parser in its ground state with the whole screen as scroll region. */
  get inGround(): boolean {
    return this.#state === State.Ground;
  }

  /** False once the tracker met something it does not follow: from then on it can tell nothing. */
  get known(): boolean {
    return this.#state !== State.Unknown;
  }

  /** Follows `text`, as the emulator's parser would take it in after what was scanned before. */
  scan(text: string): void {
    let state = this.#state;
    for (let index = 0; index < text.length && state !== State.Unknown; index++) {
      const code = text.charCodeAt(index);
      if (code >= 0x80 && code < 0xa0) {
        state = State.Unknown; // C1 controls: CSI, OSC, DCS... in one character
      } else if (code === 0x1b) {
        state = State.Escape;
      } else if (code === 0x18 || code === 0x1a) {
        state = State.Ground; // CAN and SUB cancel any sequence (and end an OSC string)
      } else {
        state = next(state, code);
      }
    }
    this.#state = state;
  }
}

/** The state after `code` (not ESC, CAN, SUB or a C1 control) in `state`. */
function next(state: State, code: number): State {
  switch (state) {
    case State.Ground:
      return State.Ground;
    case State.Escape:
      if (code < 0x20 || code === 0x7f) return State.Escape; // executed (C0) or ignored (DEL) inside the sequence
      if (code < 0x30) return State.EscapeIntermediate;
      if (code === 0x5b) return State.Csi; // [
      if (code === 0x5d) return State.Osc; // ]
      if (code === 0x50 || code === 0x58 || code === 0x5e || code === 0x5f) return State.Unknown; // DCS, SOS, PM, APC
      return State.Ground; // dispatched (0x30-0x7e), or an error that returns to ground (non-ASCII)
    case State.EscapeIntermediate:
      if (code < 0x20 || code === 0x7f) return State.EscapeIntermediate;
      if (code < 0x30) return State.EscapeIntermediate;
      return State.Ground;
    case State.Csi:
      if (code < 0x20 || code === 0x7f) return State.Csi;
      if (code < 0x40) return State.Csi; // parameters, intermediates, private markers
      if (code === 0x72) return State.Unknown; // final `r`: DECSTBM sets the scroll region
      if (code < 0x7f) return State.Ground; // any other final byte
      return State.Unknown; // non-ASCII inside a CSI: an error in some sub-states, ignored in others
    case State.Osc:
      return code === 0x07 ? State.Ground : State.Osc; // BEL ends it (ESC, CAN, SUB are handled by the caller)
    default:
      return State.Unknown;
  }
}
