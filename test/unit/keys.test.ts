import { describe, expect, it } from "vitest";
import { AgentTtyError } from "../../src/errors.js";
import { encodeKeys, KEY_NAMES } from "../../src/terminal/keys.js";

const normal = { applicationCursor: false };
const application = { applicationCursor: true };

function encode(...names: string[]): string {
  return encodeKeys(names, normal);
}

describe("encodeKeys", () => {
  it("ctrl+c encodes as ETX", () => {
    expect(encode("ctrl+c")).toBe("\x03");
  });

  it("every ctrl+letter is the letter's control code, in either case", () => {
    for (let code = 0x61; code <= 0x7a; code++) {
      const letter = String.fromCharCode(code);
      expect(encode(`ctrl+${letter}`)).toBe(String.fromCharCode(code - 0x60));
      expect(encode(`CTRL+${letter.toUpperCase()}`)).toBe(String.fromCharCode(code - 0x60));
    }
  });

  it("ctrl with punctuation gives the C0 controls xterm sends", () => {
    expect(encode("ctrl+[")).toBe("\x1b");
    expect(encode("ctrl+\\")).toBe("\x1c");
    expect(encode("ctrl+]")).toBe("\x1d");
    expect(encode("ctrl+^")).toBe("\x1e");
    expect(encode("ctrl+_")).toBe("\x1f");
    expect(encode("ctrl+@")).toBe("\x00");
    expect(encode("ctrl+space")).toBe("\x00");
    expect(encode("ctrl+backspace")).toBe("\x08");
  });

  it("plain named keys encode as xterm does", () => {
    expect(encode("enter")).toBe("\r");
    expect(encode("tab")).toBe("\t");
    expect(encode("shift+tab")).toBe("\x1b[Z");
    expect(encode("esc")).toBe("\x1b");
    expect(encode("escape")).toBe("\x1b");
    expect(encode("backspace")).toBe("\x7f");
    expect(encode("delete")).toBe("\x1b[3~");
    expect(encode("insert")).toBe("\x1b[2~");
    expect(encode("pageup")).toBe("\x1b[5~");
    expect(encode("pagedown")).toBe("\x1b[6~");
    expect(encode("space")).toBe(" ");
  });

  it("function keys use SS3 for f1-f4 and numbered tilde sequences after", () => {
    const expected = [
      "\x1bOP",
      "\x1bOQ",
      "\x1bOR",
      "\x1bOS",
      "\x1b[15~",
      "\x1b[17~",
      "\x1b[18~",
      "\x1b[19~",
      "\x1b[20~",
      "\x1b[21~",
      "\x1b[23~",
      "\x1b[24~",
    ];
    expected.forEach((bytes, index) => expect(encode(`f${index + 1}`)).toBe(bytes));
  });

  it("arrows, home and end use CSI normally and SS3 in application cursor mode", () => {
    const names = ["up", "down", "right", "left", "home", "end"];
    expect(encodeKeys(names, normal)).toBe("\x1b[A\x1b[B\x1b[C\x1b[D\x1b[H\x1b[F");
    expect(encodeKeys(names, application)).toBe("\x1bOA\x1bOB\x1bOC\x1bOD\x1bOH\x1bOF");
  });

  it("application cursor mode does not change keys outside the cursor group", () => {
    expect(encodeKeys(["pageup", "delete", "f1", "enter"], application)).toBe("\x1b[5~\x1b[3~\x1bOP\r");
  });

  it("modified cursor and function keys use xterm's modifier parameter in both modes", () => {
    for (const mode of [normal, application]) {
      expect(encodeKeys(["ctrl+left"], mode)).toBe("\x1b[1;5D");
      expect(encodeKeys(["shift+up"], mode)).toBe("\x1b[1;2A");
      expect(encodeKeys(["alt+right"], mode)).toBe("\x1b[1;3C");
      expect(encodeKeys(["ctrl+shift+end"], mode)).toBe("\x1b[1;6F");
      expect(encodeKeys(["ctrl+alt+shift+home"], mode)).toBe("\x1b[1;8H");
    }
    expect(encode("ctrl+delete")).toBe("\x1b[3;5~");
    expect(encode("shift+f5")).toBe("\x1b[15;2~");
    expect(encode("ctrl+f1")).toBe("\x1b[1;5P");
  });

  it("alt prefixes ESC to characters and single-byte keys", () => {
    expect(encode("alt+b")).toBe("\x1bb");
    expect(encode("alt+B")).toBe("\x1bB");
    expect(encode("alt+.")).toBe("\x1b.");
    expect(encode("alt+enter")).toBe("\x1b\r");
    expect(encode("alt+backspace")).toBe("\x1b\x7f");
    expect(encode("meta+f")).toBe("\x1bf");
    expect(encode("alt+ctrl+x")).toBe("\x1b\x18");
    expect(encode("ctrl+alt+x")).toBe("\x1b\x18");
    expect(encode("alt+shift+tab")).toBe("\x1b\x1b[Z");
    expect(encode("alt++")).toBe("\x1b+");
  });

  it("shift+letter is the upper-case letter", () => {
    expect(encode("shift+a")).toBe("A");
    expect(encode("alt+shift+a")).toBe("\x1bA");
  });

  it("single characters pass through exactly as given", () => {
    expect(encode("a", "A", "/", "+", "é", "😀")).toBe("aA/+é😀");
  });

  it("names are case-insensitive", () => {
    expect(encode("Enter", "TAB", "Shift+Tab", "F12", "PageUp")).toBe("\r\t\x1b[Z\x1b[24~\x1b[5~");
  });

  it("several names concatenate in order", () => {
    expect(encode("ctrl+c", "up", "enter")).toBe("\x03\x1b[A\r");
    expect(encodeKeys([], normal)).toBe("");
  });

  it("every documented name encodes", () => {
    for (const name of KEY_NAMES) expect(encode(name).length).toBeGreaterThan(0);
  });

  it("an unknown name throws ERR_INVALID_ARGUMENT listing the valid names", () => {
    let caught: unknown;
    try {
      encode("enter", "ctrl+enterr");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AgentTtyError);
    const error = caught as AgentTtyError;
    expect(error.code).toBe("ERR_INVALID_ARGUMENT");
    expect(error.message).toContain('"ctrl+enterr"');
    for (const name of ["enter", "shift+tab", "pagedown", "f12"]) expect(error.message).toContain(name);
  });

  it.each(["", "entr", "ctrl+", "ctrl+1", "hyper+a", "shift+enter", "ctrl+shift+tab", "ctrl++", "ab"])("rejects %j", (name) => {
    expect(() => encode(name)).toThrowError(expect.objectContaining({ code: "ERR_INVALID_ARGUMENT" }));
  });

  it("rejects names that are not strings", () => {
    expect(() => encodeKeys([42 as unknown as string], normal)).toThrowError(/got `42` \(number\)/);
    expect(() => encodeKeys("enter" as unknown as string[], normal)).toThrowError(AgentTtyError);
  });
});
