import { GroundTracker } from "./ground-tracker.js";
import { countLineFeeds, holdsTail, isPlainText, PlainRun } from "./plain-run.js";

/** What a backlog is fed into: a {@link Screen}'s `write`. */
export interface BacklogTarget {
  write(data: string, plain: boolean): void;
}

/**
 * Terminal output held back from the emulator behind `screen()`: until a
 * screen is asked for, output only waits here, and most sessions never make
 * one (which also spares them loading xterm.js).
 *
 * What waits is kept bounded without an emulator: {@link ScreenBacklog.compact}
 * collapses bursts of plain output to the tail that leaves an emulator in
 * the same state (as the screen's own fast-forward does, see `PlainRun`).
 * That needs the emulator's parser in its ground state and the scroll region
 * untouched where each burst starts, which a {@link GroundTracker} follows
 * from the first byte the program printed.
 *
 * @internal
 */
export class ScreenBacklog {
  private entries: string[] = [];
  /** Whether each entry is known to be plain text (no escape sequence, no control but TAB, CR and LF). */
  private plain: boolean[] = [];
  private waiting = 0;

  /** Characters waiting. */
  get chars(): number {
    return this.waiting;
  }

  /** Adds a chunk of output; returns the characters waiting now. */
  push(text: string): number {
    this.entries.push(text);
    this.plain.push(false);
    return (this.waiting += text.length);
  }

  /** The chunk just pushed, if it is still the last one waiting, is plain text: the screen need not check it again. */
  markPlain(text: string): void {
    const last = this.entries.length - 1;
    if (last >= 0 && this.entries[last] === text) this.plain[last] = true;
  }

  /**
   * Writes everything waiting to `target` (runs of plain chunks, and the others, each in one go), and
   * empties the backlog. `filter`, when given, rewrites the runs not known to be plain first.
   */
  drainTo(target: BacklogTarget, filter?: (text: string) => string): void {
    const entries = this.entries;
    if (entries.length === 0) return;
    const plain = this.plain;
    this.entries = [];
    this.plain = [];
    this.waiting = 0;
    let start = 0;
    for (let end = 1; end <= entries.length; end++) {
      if (end < entries.length && plain[end] === plain[start]) continue;
      const text = end - start === 1 ? (entries[start] as string) : entries.slice(start, end).join("");
      if (plain[start] === true) target.write(text, true);
      else target.write(filter === undefined ? text : filter(text), false);
      start = end;
    }
  }

  /**
   * Collapses the bursts of plain output waiting to their tails, for an
   * emulator with `rows` rows and no scrollback that has parsed nothing yet
   * (the backlog must hold everything the program printed). Returns false,
   * leaving the backlog as it was, when that cannot be done safely (output
   * the tracker does not follow, a burst `PlainRun` refuses) or would leave
   * more than `maxChars` waiting: the caller should make the emulator then.
   * `filter` is the one {@link ScreenBacklog.drainTo} is given: chunks not
   * known to be plain are rewritten by it first.
   */
  compact(rows: number, maxChars: number, filter?: (text: string) => string): boolean {
    const tracker = new GroundTracker();
    const entries: string[] = [];
    const plain: boolean[] = [];
    let chars = 0;
    let run: PlainRun | undefined;
    const endRun = (): void => {
      if (run === undefined) return;
      const tail = run.take();
      run = undefined;
      entries.push(tail);
      plain.push(false); // may hold SGR sequences: the screen checks it again
      chars += tail.length;
    };
    for (let index = 0; index < this.entries.length; index++) {
      const known = this.plain[index] === true;
      let text = known || filter === undefined ? (this.entries[index] as string) : filter(this.entries[index] as string);
      if (known && this.plain[index + 1] === true) {
        // A burst of chunks known to be plain goes to the run at once; when its last chunks hold the
        // lines kept by themselves, the ones before (no escape sequence in them: nothing to replay)
        // fall out without being looked at.
        let end = index + 1;
        while (this.plain[end] === true) end++;
        let from = end;
        for (let lines = 0; from > index && lines <= 2 * rows;) lines += countLineFeeds(this.entries[--from] as string, 2 * rows + 1);
        text = this.entries.slice(from, end).join("");
        if (from > index && !holdsTail(text, 2 * rows)) text = this.entries.slice(index, end).join("");
        index = end - 1;
      }
      // Plain text leaves the parser in its ground state and the scroll region as they were.
      if (tracker.inGround && (known || isPlainText(text))) {
        run ??= new PlainRun(2 * rows);
        if (!run.append(text)) return false;
        continue;
      }
      endRun();
      tracker.scan(text);
      if (!tracker.known) return false;
      entries.push(text);
      plain.push(known);
      chars += text.length;
    }
    endRun();
    if (chars > maxChars) return false;
    this.entries = entries;
    this.plain = plain;
    this.waiting = chars;
    return true;
  }
}
