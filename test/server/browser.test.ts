import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { inflateSync } from "node:zlib";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../helpers/wait-for.js";
import { client, startServer } from "../helpers/server.js";

const CHROMIUM = "/usr/bin/chromium";
const SCREENSHOT = "test-results/web-page.png";
const BASH = { command: "bash", args: ["--norc", "--noprofile"] };

/** Distinct colours in a PNG (8-bit RGB/RGBA, no interlace): a blank page has one or two. */
function distinctColours(png: Buffer): number {
  let offset = 8;
  let width = 0;
  let height = 0;
  let colourType = 0;
  const data: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString("latin1", offset + 4, offset + 8);
    const body = png.subarray(offset + 8, offset + 8 + length);
    if (type === "IHDR") {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      colourType = body[9]!;
    } else if (type === "IDAT") data.push(body);
    offset += 12 + length;
  }
  const channels = colourType === 6 ? 4 : 3;
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const previous = Buffer.alloc(stride);
  const row = Buffer.alloc(stride);
  const colours = new Set<number>();
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    for (let x = 0; x < stride; x++) {
      const value = raw[y * (stride + 1) + 1 + x]!;
      const left = x >= channels ? row[x - channels]! : 0;
      const up = previous[x]!;
      const upLeft = x >= channels ? previous[x - channels]! : 0;
      let predicted = 0;
      if (filter === 1) predicted = left;
      else if (filter === 2) predicted = up;
      else if (filter === 3) predicted = (left + up) >> 1;
      else if (filter === 4) {
        const p = left + up - upLeft;
        const pa = Math.abs(p - left);
        const pb = Math.abs(p - up);
        const pc = Math.abs(p - upLeft);
        predicted = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      }
      row[x] = (value + predicted) & 0xff;
    }
    for (let x = 0; x < stride; x += channels * 7) colours.add((row[x]! << 16) | (row[x + 1]! << 8) | row[x + 2]!);
    row.copy(previous);
  }
  return colours.size;
}

/** Waits until the element shows `text`. */
function shows(page: Page, selector: string, text: string): Promise<unknown> {
  return page.waitForFunction(`document.querySelector(${JSON.stringify(selector)})?.textContent?.includes(${JSON.stringify(text)})`);
}

describe("the live web page in headless Chromium", () => {
  let browser: Browser;

  beforeAll(async () => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: .ci/run installs Debian's chromium`).toBe(true);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it("lists sessions, shows a cell's output live, take-over typing reaches the program and blocks agent cells, giving back unblocks them", async () => {
    const server = await startServer();
    const api = client(server);
    await api.post("/api/sessions", { name: "build", ...BASH, label: "build box", description: "compiles the thing" });
    await api.post("/api/sessions", { name: "idle-one", ...BASH, label: "spare" });
    await api.post("/api/sessions/build/run", { code: "echo first-cell; false" });

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      await page.goto(server.loginUrl());
      await page.waitForSelector('.session[data-name="build"]');
      expect(await page.textContent('.session[data-name="build"]')).toContain("build box");
      expect(await page.textContent('.session[data-name="build"]')).toContain("compiles the thing");
      expect(await page.textContent('.session[data-name="idle-one"]')).toContain("spare");

      await page.click('.session[data-name="build"]');
      await shows(page, ".xterm-rows", "first-cell");
      await shows(page, "#cellrows", "echo first-cell; false");
      expect(await page.textContent("#cellrows tr:first-child td:nth-child(3)")).toBe("1");

      // A cell runs while the page watches: its output shows up live and the session shows busy.
      const fired = await api.post("/api/sessions/build/fire", { code: "for i in 1 2 3; do echo tick-$i; sleep 0.4; done" });
      await shows(page, ".xterm-rows", "tick-1");
      await page.waitForSelector('.session[data-name="build"] .spinner');
      await shows(page, ".xterm-rows", "tick-3");
      await waitFor(async () => (await api.get(`/api/sessions/build/cells/${fired.json.cellId}`)).json.status === "done");

      // Take over: typing reaches the program; agent cells are refused meanwhile.
      await page.click("#take");
      await page.waitForSelector("#give:not([hidden])");
      const refused = await api.post("/api/sessions/build/run", { code: "echo agent" });
      expect(refused.status).toBe(409);
      expect(refused.json.error.code).toBe("ERR_HUMAN_CONTROL");
      await page.click("#term");
      await page.keyboard.type("echo typed-by-person-$((20+22))");
      await page.keyboard.press("Enter");
      await shows(page, ".xterm-rows", "typed-by-person-42");
      const history = (await api.get("/api/sessions/build/history?lines=30")).json.history as string;
      expect(history).toContain("echo typed-by-person-$((20+22))");
      expect(history).toContain("typed-by-person-42");

      await page.screenshot({ path: (mkdirSync("test-results", { recursive: true }), SCREENSHOT) });
      expect(distinctColours(readFileSync(SCREENSHOT))).toBeGreaterThan(4);

      // Give back: agent cells run again.
      await page.click("#give");
      await page.waitForSelector("#take:not([hidden])");
      await waitFor(async () => (await api.get("/api/sessions/build")).json.control === null);
      const again = await api.post("/api/sessions/build/run", { code: "echo agent-back" });
      expect(again.json).toMatchObject({ status: "done", output: "agent-back" });
    } finally {
      await context.close();
    }
  }, 60_000);

  it("a read-only watcher sees the same terminal and cannot type; labels are shown as text, never as HTML", async () => {
    const server = await startServer();
    const api = client(server);
    await api.post("/api/sessions", { name: "shared", ...BASH, label: '<img src=x onerror="document.title=1">', description: "a & b" });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(server.loginUrl());
      await page.waitForSelector('.session[data-name="shared"]');
      expect(await page.textContent('.session[data-name="shared"]')).toContain('<img src=x onerror="document.title=1">');
      expect(await page.$('.session[data-name="shared"] img')).toBeNull();
      await page.click('.session[data-name="shared"]');
      await page.waitForSelector(".xterm-rows");
      await page.click("#term");
      await page.keyboard.type("echo watcher-should-not-type");
      await page.keyboard.press("Enter");
      await api.post("/api/sessions/shared/run", { code: "echo seen-by-watcher" });
      await shows(page, ".xterm-rows", "seen-by-watcher");
      expect(await page.textContent(".xterm-rows")).not.toContain("watcher-should-not-type");
      expect((await api.get("/api/sessions/shared/history")).json.history).not.toContain("watcher-should-not-type");
    } finally {
      await context.close();
    }
  }, 60_000);

  it("without logging in, the page answers 401 and names the login URL", async () => {
    const server = await startServer();
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const response = await page.goto(`${server.url}/`);
      expect(response?.status()).toBe(401);
      expect(await page.textContent("body")).toContain("login URL");
    } finally {
      await context.close();
    }
  }, 60_000);
});
