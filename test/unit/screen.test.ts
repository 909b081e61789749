import { afterEach, describe, expect, it } from "vitest";
import { AgentTtyError } from "../../src/errors.js";
import { Screen, type ScreenOptions } from "../../src/terminal/screen.js";

const screens: Screen[] = [];

function screen(options: Partial<ScreenOptions> = {}): Screen {
  const created = new Screen({ cols: 40, rows: 10, ...options });
  screens.push(created);
  return created;
}

/** What `text()` shows for these top rows: every other row of the screen is blank. */
function filled(s: Screen, top: string): string {
  const lines = top.split("\n");
  return [...lines, ...Array.from({ length: s.rows - lines.length }, () => "")].join("\n");
}

afterEach(() => {
  for (const created of screens.splice(0)) created.dispose();
});

describe("Screen", () => {
  it("parses writes synchronously with @xterm/headless 6", () => {
    const s = screen();
    expect(s.synchronous).toBe(true);
    s.write("hello");
    expect(s.text()).toBe(filled(s, "hello"));
  });

  it("text() joins every visible row, blank ones included, each with its trailing spaces trimmed", () => {
    const s = screen();
    s.write("first   \r\n\r\nthird\r\n\r\n\r\n");
    expect(s.text().split("\n")).toEqual(["first", "", "third", "", "", "", "", "", "", ""]);
  });

  it("an empty screen renders as its rows, all blank", () => {
    expect(screen().text()).toBe("\n".repeat(9));
  });

  it("carriage-return redraws show only what the screen finally shows", () => {
    const s = screen();
    s.write("progress 10%\rprogress 55%\rprogress 100%\r\ndone\r\n");
    expect(s.text()).toBe(filled(s, "progress 100%\ndone"));
  });

  it("shows only the last rows of long output", () => {
    const s = screen({ rows: 3 });
    s.write(Array.from({ length: 100 }, (_, index) => `line ${index}`).join("\r\n"));
    expect(s.text()).toBe(filled(s, "line 97\nline 98\nline 99"));
  });

  it("escape sequences split across writes are parsed as one", () => {
    const s = screen();
    s.write("abc\x1b[");
    s.write("3");
    s.write("1mx\x1b]0;ti");
    s.write("tle\x07y");
    expect(s.text()).toBe(filled(s, "abcxy"));
  });

  it("long lines wrap at the width", () => {
    const s = screen({ cols: 10 });
    s.write("0123456789abcdef");
    expect(s.text()).toBe(filled(s, "0123456789\nabcdef"));
  });

  it("renders the alternate screen while it is active and restores the normal one after", () => {
    const s = screen();
    s.write("$ vim notes\r\n");
    s.write("\x1b[?1049h\x1b[H\x1b[2Jtext of the file\x1b[10;1H-- INSERT --");
    expect(s.alternateScreen).toBe(true);
    expect(s.text()).toBe(filled(s, `text of the file${"\n".repeat(9)}-- INSERT --`));
    s.write("\x1b[?1049l");
    expect(s.alternateScreen).toBe(false);
    expect(s.text()).toBe(filled(s, "$ vim notes"));
  });

  it("reports application cursor keys and bracketed paste as the program sets them", () => {
    const s = screen();
    expect([s.applicationCursorKeys, s.bracketedPaste]).toEqual([false, false]);
    s.write("\x1b[?1h\x1b[?2004h");
    expect([s.applicationCursorKeys, s.bracketedPaste]).toEqual([true, true]);
    s.write("\x1b[?1l");
    expect([s.applicationCursorKeys, s.bracketedPaste]).toEqual([false, true]);
    s.write("\x1b[?2004l");
    expect(s.bracketedPaste).toBe(false);
  });

  it("answers cursor position, status and device attribute queries through onResponse", () => {
    const s = screen();
    const responses: string[] = [];
    const subscription = s.onResponse((data) => responses.push(data));
    s.write("ab\r\ncde\x1b[6n");
    s.write("\x1b[5n\x1b[c\x1b[>c");
    expect(responses[0]).toBe("\x1b[2;4R");
    expect(responses[1]).toBe("\x1b[0n");
    expect(responses[2]).toMatch(/^\x1b\[\?[\d;]+c$/);
    expect(responses[3]).toMatch(/^\x1b\[>[\d;]+c$/);
    subscription.dispose();
    s.write("\x1b[6n");
    expect(responses).toHaveLength(4);
  });

  it("resize reflows wrapped lines above the cursor", () => {
    const s = screen({ cols: 10, rows: 4 });
    s.write("0123456789abcdef\r\n$ ");
    s.resize(20, 4);
    expect(s.text()).toBe(filled(s, "0123456789abcdef\n$"));
    expect([s.cols, s.rows]).toEqual([20, 4]);
  });

  it("flush() resolves once earlier writes are on screen", async () => {
    const s = screen();
    s.write("x\r\ny");
    await s.flush();
    expect(s.text()).toBe(filled(s, "x\ny"));
  });

  it("after dispose, writes are ignored and text is empty", () => {
    const s = screen();
    s.write("before");
    s.dispose();
    s.write("after");
    expect(s.text()).toBe("");
    s.dispose();
  });

  it.each<[string, Partial<ScreenOptions>]>([
    ["cols 0", { cols: 0 }],
    ["rows 1.5", { rows: 1.5 }],
    ["cols NaN", { cols: Number.NaN }],
    ["scrollback -1", { scrollback: -1 }],
  ])("rejects %s with ERR_INVALID_ARGUMENT", (_, options) => {
    expect(() => screen(options)).toThrowError(AgentTtyError);
    expect(() => screen(options)).toThrowError(expect.objectContaining({ code: "ERR_INVALID_ARGUMENT" }));
  });

  it("rejects a resize to a size that is not a positive integer", () => {
    expect(() => screen().resize(0, 5)).toThrowError(expect.objectContaining({ code: "ERR_INVALID_ARGUMENT" }));
  });
});

describe("Screen.styledText", () => {
  it("redraws the same screen, colours and the alternate screen included, on a fresh emulator", () => {
    const source = new Screen({ cols: 30, rows: 5 });
    source.write("plain \x1b[31mred\x1b[0m \x1b[1;44mbold-blue\x1b[0m\r\nsecond line\r\n");
    const normal = new Screen({ cols: 30, rows: 5 });
    normal.write(source.styledText());
    expect(normal.text()).toBe(source.text());
    expect(source.styledText()).toContain("\x1b[31mred");

    source.write("\x1b[?1049h\x1b[H\x1b[32mfull-screen\x1b[0m");
    const alternate = new Screen({ cols: 30, rows: 5 });
    alternate.write(source.styledText());
    expect(alternate.alternateScreen).toBe(true);
    expect(alternate.text()).toBe(source.text());
  });
});
