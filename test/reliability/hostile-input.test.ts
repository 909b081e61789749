import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { AgentTtyError, detectors } from "../../src/index.js";
import { spawnBash, spawnSession } from "../helpers/sessions.js";

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** `count` numbered lines of 100 bytes (with their newline), mixing ASCII, quotes and a few multi-byte characters. */
function pasteLines(count: number): string[] {
  return Array.from({ length: count }, (_, index) => {
    const head = `line ${String(index + 1).padStart(6, "0")} "q" 'a' $HOME \`x\` \\ é ü 中 `;
    return head + "x".repeat(99 - Buffer.byteLength(head));
  });
}

/** Text of every width: CJK, emoji (ZWJ families, flags, skin tones, keycaps), combining marks, RTL, zero-width, astral. */
const UNICODE_SAMPLES: Record<string, string> = {
  cjk: "漢字かなカナ한국어 全角ＡＢＣ１２３",
  emoji: "😀 👍🏽 👨‍👩‍👧‍👦 🏳️‍🌈 🇫🇷🇯🇵 #️⃣ ❤️ ✈︎",
  combining: "e\u0301 n\u0303 a\u030a\u0323 Z\u0351\u0352\u0353\u0354a\u0355\u0356l\u0357g\u0358o\u0359",
  decomposed: "Ame\u0301lie cafe\u0301 (NFD) vs Amélie café (NFC)",
  rtl: "שלום עולם — مرحبا بالعالم",
  zeroWidth: "a\u200bb\u200cc\u200dd\u2060e\ufeff!",
  astral: "𝕏 𐍈 𝄞 🀄 𠀀",
  mixed: "tab\there, wide 中 then narrow, emoji 🎉 end",
};

describe("hostile input", () => {
  it("a 1 MB cell pasted as a bash heredoc reaches the program byte for byte", async () => {
    const sh = await spawnBash({ timeoutMs: 120_000 });
    const lines = pasteLines(10_486);
    const body = `${lines.join("\n")}\n`;
    expect(Buffer.byteLength(body)).toBeGreaterThan(1_000_000);
    // Into a file first: counted and hashed one after the other (a process substitution would race the prompt).
    const r = await sh.run(
      `f=$(mktemp); cat > "$f" <<'AGENT_TTY_EOF'\n${lines.join("\n")}\nAGENT_TTY_EOF\nsha256sum < "$f"; wc -c < "$f"; rm -f "$f"`,
    );
    expect(r.status).toBe("done");
    expect(r.exitCode).toBe(0);
    const printed = r.output.split("\n").map((line) => line.trim());
    expect(printed).toContain(`${sha256(body)}  -`);
    expect(printed).toContain(String(Buffer.byteLength(body)));
    expect(r.output.split("\n")).toHaveLength(2);
    const next = await sh.run("echo next-cell");
    expect(next.output).toBe("next-cell");
  }, 150_000);

  it("input written while the program is not reading waits, then arrives whole and in order", async () => {
    // Raw mode, so the terminal holds no line discipline limit; the program reads only after a pause,
    // so most of the input meets a full terminal buffer and is written later, in pieces.
    const size = 256 * 1024;
    const sh = await spawnSession({
      command: "sh",
      args: ["-c", `stty raw -echo; sleep 0.5; head -c ${size} | sha256sum; sleep 5`],
      detector: detectors.idle({ ms: 300 }),
      timeoutMs: 30_000,
    });
    const chunks = Array.from({ length: 64 }, (_, index) => `${String(index).padStart(4, "0")}${"x".repeat(4092)}`);
    for (const chunk of chunks) sh.write(chunk);
    const seen = await sh.expect(/[0-9a-f]{64}/, { timeoutMs: 20_000 });
    expect(seen.match).toBe(sha256(chunks.join("")));
  }, 40_000);

  it("a 1 MB single-line echo reaches the program byte for byte", async () => {
    const sh = await spawnBash({ timeoutMs: 120_000 });
    const word = Array.from({ length: 100_000 }, (_, index) => String(index % 10_000).padStart(4, "0"))
      .join(",")
      .slice(0, 1_000_000);
    const r = await sh.run(`echo '${word}' | sha256sum`);
    expect(r.status).toBe("done");
    expect(r.exitCode).toBe(0);
    expect(r.output).toBe(`${sha256(`${word}\n`)}  -`);
  }, 150_000);

  it("a 1 MB single line printed back comes out whole (with a cap that allows it) and exact", async () => {
    const sh = await spawnBash({ timeoutMs: 120_000, maxOutputBytes: 4 << 20 });
    const word = "0123456789abcdef".repeat(65_536);
    const r = await sh.run(`echo '${word}'`);
    expect(r.status).toBe("done");
    expect(r.truncated).toBe(false);
    expect(r.output.length).toBe(word.length);
    expect(r.output === word).toBe(true);
  }, 150_000);

  it("a 20,000-character command line that wraps 100 times in the terminal runs once, its echo removed", async () => {
    const sh = await spawnBash();
    const parts = Array.from({ length: 2_000 }, (_, index) => `w${String(index).padStart(4, "0")}`);
    const r = await sh.run(`for w in ${parts.join(" ")} ; do :; done; echo "ran ${parts.length} words"; echo ${parts.slice(-3).join(" ")}`);
    expect(r.status).toBe("done");
    expect(r.exitCode).toBe(0);
    expect(r.output).toBe(`ran 2000 words\n${parts.slice(-3).join(" ")}`);
  });

  it("a python line of 10,000 characters runs once and its echo is removed", async () => {
    const sh = await spawnSession({ command: "python3", timeoutMs: 20_000 });
    const text = "abcdefghij".repeat(1_000);
    const r = await sh.run(`s = "${text}"; print(len(s), s[-12:])`);
    expect(r.status).toBe("done");
    expect(r.output).toBe(`10000 ${text.slice(-12)}`);
    const next = await sh.run("print('next')");
    expect(next.output).toBe("next");
  });

  it.each(Object.entries(UNICODE_SAMPLES))("Unicode round-trips exactly through bash: %s", async (_name, text) => {
    const sh = await spawnBash();
    const r = await sh.run(`printf '%s\\n' '${text}'; printf '%s' '${text}' | sha256sum`);
    expect(r.status).toBe("done");
    expect(r.exitCode).toBe(0);
    expect(r.output).toBe(`${text}\n${sha256(text)}  -`);
  });

  it("Unicode of every width round-trips exactly through python, its echo removed", async () => {
    const sh = await spawnSession({ command: "python3", timeoutMs: 20_000 });
    for (const [name, text] of Object.entries(UNICODE_SAMPLES)) {
      const escaped = text.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\t/g, "\\t");
      const r = await sh.run(`print('${escaped}')`);
      expect(r.status, name).toBe("done");
      expect(r.output, name).toBe(text);
    }
  });

  it("a tab inside a cell reaches the program literally", async () => {
    const sh = await spawnBash();
    const r = await sh.run("printf '%s' 'a\tb' | od -An -c | tr -s ' '");
    expect(r.status).toBe("done");
    expect(r.output.trim()).toBe("a \\t b");
  });

  // Control characters cannot all reach a program through a terminal: the
  // line discipline turns some into signals (^C ^Z ^\) and readline gives
  // others meaning. A cell holding one must either reach the program exactly
  // or be refused with ERR_INVALID_ARGUMENT (nothing written) — never run as
  // a different command, hang, or break the session.
  const CONTROLS: Array<[string, string]> = [
    ["NUL", "\x00"],
    ["SOH ^A", "\x01"],
    ["ETX ^C", "\x03"],
    ["EOT ^D", "\x04"],
    ["BEL", "\x07"],
    ["BS", "\x08"],
    ["VT", "\x0b"],
    ["FF", "\x0c"],
    ["SO", "\x0e"],
    ["DC3 ^S", "\x13"],
    ["SI ^O", "\x0f"],
    ["DC1 ^Q", "\x11"],
    ["DC2 ^R", "\x12"],
    ["NAK ^U", "\x15"],
    ["SYN ^V", "\x16"],
    ["ETB ^W", "\x17"],
    ["SUB ^Z", "\x1a"],
    ["ESC", "\x1b"],
    ["FS ^\\", "\x1c"],
    ["DEL", "\x7f"],
  ];
  it.each(CONTROLS)(
    "a cell containing %s either reaches the program exactly or is refused, and the session stays usable",
    async (_name, char) => {
      const sh = await spawnBash({ timeoutMs: 5_000 });
      const hex = char.charCodeAt(0).toString(16).padStart(2, "0");
      let refused: unknown;
      const outcome = await sh.run(`printf '%s' 'A${char}B' | od -An -tx1 | tr -d ' \\n'; echo`).catch((error: unknown) => {
        refused = error;
        return undefined;
      });
      if (outcome === undefined) {
        expect(refused).toBeInstanceOf(AgentTtyError);
        expect((refused as AgentTtyError).code).toBe("ERR_INVALID_ARGUMENT");
      } else {
        expect(outcome.status).toBe("done");
        expect(outcome.exitCode).toBe(0);
        expect(outcome.output).toBe(`41${hex}42`);
      }
      const next = await sh.run("echo still-usable", { timeoutMs: 5_000 });
      expect(next.status).toBe("done");
      expect(next.output).toBe("still-usable");
    },
  );
});
