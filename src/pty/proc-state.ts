import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, readvSync, statSync } from "node:fs";
import { endianness } from "node:os";

/** The process group in the foreground of a terminal, as Linux `/proc` shows it. */
export interface ForegroundInfo {
  /** The foreground process group of the terminal (`tpgid`). */
  pgid: number;
  /** Live processes of that group, ascending. */
  pids: number[];
  /** Command name (`comm`) of the group leader, or of its first live member. */
  command: string;
  /**
   * Whether a process of the group sleeps reading the terminal: in `read`
   * on it, or in `select`/`poll`/`epoll` watching it for input (python's
   * `input()` waits in `pselect6`, node in `epoll_pwait`).
   */
  blockedOnTerminal: boolean;
  /** State letter of that same process (`R` running, `S` sleeping, `T` stopped…). */
  state: string;
}

interface ProcStat {
  readonly pid: number;
  readonly comm: string;
  readonly state: string;
  readonly pgrp: number;
  readonly session: number;
  readonly ttyNr: number;
  readonly tpgid: number;
  readonly threads: number;
}

type WaitKind = "read" | "select" | "poll" | "epoll";

/** Syscalls a process waiting for terminal input sits in, per architecture. */
const WAIT_SYSCALLS: Partial<Record<string, ReadonlyMap<number, WaitKind>>> = {
  x64: new Map<number, WaitKind>([
    [0, "read"],
    [17, "read"],
    [19, "read"],
    [23, "select"],
    [270, "select"],
    [7, "poll"],
    [271, "poll"],
    [232, "epoll"],
    [281, "epoll"],
    [441, "epoll"],
  ]),
  arm64: new Map<number, WaitKind>([
    [63, "read"],
    [65, "read"],
    [67, "read"],
    [72, "select"],
    [73, "poll"],
    [22, "epoll"],
    [441, "epoll"],
  ]),
};

const WAIT_TABLE = WAIT_SYSCALLS[process.arch];
/** The syscall number and its first two arguments (at most 13 hex digits: every number read is safe). */
const SYSCALL_WORDS = /^(\d{1,9}) (0x[0-9a-f]{1,13}) (0x[0-9a-f]{1,13})(?: |$)/;

/** Kernel functions a task sleeps in while waiting on a terminal or on select/poll/epoll. */
const TERMINAL_WCHAN =
  /^(n_tty_read|tty_read|wait_woken|do_select|core_sys_select|do_sys_poll|poll_schedule_timeout.*|ep_poll|do_epoll_wait)$/;

/** `makedev(5, 0)`: `/dev/tty`, the calling process's controlling terminal. */
const DEV_TTY = (5 << 8) | 0;
const POLL_INPUT = 0x1 | 0x2 | 0x40; // POLLIN | POLLPRI | POLLRDNORM
const EPOLL_INPUT = 0x1 | 0x2 | 0x40; // EPOLLIN | EPOLLPRI | EPOLLRDNORM
const MAX_THREADS_CHECKED = 64;

let procAvailable: boolean | undefined;

/**
 * The `/proc` paths a check reads of one process, made once: a path built afresh is a new string
 * whose hash the kept-descriptor map computes again on every check.
 */
interface ProcPaths {
  readonly stat: string;
  readonly syscall: string;
  readonly mem: string;
  /** `fdinfo/<fd>`, by descriptor (the low ones a check looks at). */
  readonly fdinfo: string[];
}
const procPaths = new Map<number, ProcPaths>();
const MAX_PROC_PATHS = 1024;
const MAX_FDINFO_PATHS = 64;

function pathsOf(pid: number): ProcPaths {
  let paths = procPaths.get(pid);
  if (paths === undefined) {
    if (procPaths.size >= MAX_PROC_PATHS) procPaths.clear();
    paths = { stat: `/proc/${pid}/task/${pid}/stat`, syscall: `/proc/${pid}/syscall`, mem: `/proc/${pid}/mem`, fdinfo: [] };
    procPaths.set(pid, paths);
  }
  return paths;
}

function fdinfoPath(pid: number, fd: number): string {
  if (fd >= MAX_FDINFO_PATHS) return `/proc/${pid}/fdinfo/${fd}`;
  const paths = pathsOf(pid).fdinfo;
  return (paths[fd] ??= `/proc/${pid}/fdinfo/${fd}`);
}

/** Whether Linux `/proc` can be read here (false on macOS, Windows, or without procfs). */
export function isLinuxProcAvailable(): boolean {
  procAvailable ??= process.platform === "linux" && existsSync("/proc/self/stat");
  return procAvailable;
}

/**
 * Describes the foreground process group of the terminal that `shellPid`
 * (the program the PTY started) controls: who runs there, and whether it
 * waits for terminal input. Cheap enough to call every 100 ms: it reads a
 * few small `/proc` files of the shell and its descendants.
 *
 * @returns `undefined` when `/proc` is unavailable, the process is gone, or
 * it has no controlling terminal.
 */
export function readForeground(shellPid: number): ForegroundInfo | undefined {
  const shell = readShell(shellPid);
  return shell === undefined ? undefined : foregroundOf(shell);
}

/**
 * Whether the foreground process group of the terminal that `shellPid`
 * controls is blocked reading it: {@link readForeground}'s
 * `blockedOnTerminal`, made cheaper for the common case (the group's leader
 * is the one reading: a shell or REPL at its prompt) by checking the leader
 * before looking for the group's other members. `false` where `/proc`
 * cannot tell or the process is gone.
 */
export function isForegroundReading(shellPid: number): boolean {
  const shell = readShell(shellPid);
  if (shell === undefined) return false;
  const pgid = shell.tpgid;
  const leader = pgid === shell.pid ? shell : readStat(pgid, true);
  if (leader !== undefined && leader.pgrp === pgid && isBlockedOnTerminal(leader, shell.ttyNr)) return true;
  return foregroundOf(shell, leader?.pgrp === pgid ? leader.pid : undefined)?.blockedOnTerminal === true;
}

/**
 * Whether a process of the foreground group of the terminal that `shellPid` controls is running or
 * about to (state `R`; `D`: in the kernel on its way), not asleep in a wait: one a signal just woke,
 * say. `false` where `/proc` cannot tell or the process is gone.
 */
export function isForegroundRunning(shellPid: number): boolean {
  const shell = readShell(shellPid);
  if (shell === undefined) return false;
  const pgid = shell.tpgid;
  let members = groupMembersBelow(shell, pgid);
  if (members === undefined || members.length === 0) members = scanProcesses((stat) => stat.pgrp === pgid);
  return members.some((member) => member.state === "R" || member.state === "D");
}

/**
 * A stamp of the terminal's foreground program that changes whenever it runs: its process group and
 * the scheduler's counts of the group's leader (`/proc/<pid>/schedstat`: time on a CPU, time waiting
 * for one, times run). Two equal stamps a while apart mean it slept all along. `undefined` where
 * `/proc` cannot tell (no process, no terminal, no scheduler counts).
 */
export function foregroundRunStamp(shellPid: number): string | undefined {
  const shell = readShell(shellPid);
  if (shell === undefined) return undefined;
  const counts = readText(`/proc/${shell.tpgid}/schedstat`);
  return counts === undefined || counts.startsWith("0 0 0") ? undefined : `${shell.tpgid} ${counts}`;
}

/** The program the PTY started, if it is alive and has a controlling terminal. */
function readShell(shellPid: number): ProcStat | undefined {
  if (!isLinuxProcAvailable() || !Number.isSafeInteger(shellPid) || shellPid <= 0) return undefined;
  const shell = readStat(shellPid, true);
  return shell === undefined || shell.tpgid <= 0 || shell.ttyNr === 0 ? undefined : shell;
}

/** The terminal's foreground group as `shell` sees it; `checked`: a member already found not reading. */
function foregroundOf(shell: ProcStat, checked?: number): ForegroundInfo | undefined {
  const pgid = shell.tpgid;
  let members = groupMembersBelow(shell, pgid);
  if (members === undefined || members.length === 0) members = scanProcesses((stat) => stat.pgrp === pgid);
  if (members.length === 0) return undefined;
  members.sort((a, b) => a.pid - b.pid);

  const blocked = members.find((member) => member.pid !== checked && isBlockedOnTerminal(member, shell.ttyNr));
  const shown = blocked ?? members.find((member) => member.pid === pgid) ?? members[0];
  if (shown === undefined) return undefined;
  return {
    pgid,
    pids: members.map((member) => member.pid),
    command: shown.comm,
    blockedOnTerminal: blocked !== undefined,
    state: shown.state,
  };
}

/**
 * How many tasks (processes and threads) the whole system runs, from
 * `/proc/loadavg`: an upper bound of any session's process count, read in
 * one small file where counting them means reading every `/proc/<pid>/stat`.
 * `undefined` where it cannot be read.
 */
export function systemTaskCount(): number | undefined {
  const match = /^\S+ \S+ \S+ \d+\/(\d+) /.exec(readText("/proc/loadavg") ?? "");
  return match === null ? undefined : Number(match[1]);
}

/**
 * Lists every process whose session id is `sid`, ascending: all that a
 * program started in a PTY (it leads the session) left behind, including
 * jobs in other process groups. Returns `[]` where `/proc` is unavailable.
 */
export function listSessionProcesses(sid: number): number[] {
  if (!isLinuxProcAvailable() || !Number.isSafeInteger(sid) || sid <= 0) return [];
  const found: number[] = [];
  for (const pid of listNumeric("/proc")) if (sessionOf(pid) === sid) found.push(pid);
  return found.sort((a, b) => a - b);
}

/**
 * The session id of `pid` (`undefined` when it is gone), for a scan of every process (close()
 * looks at them all): read from the main thread's own stat file (no sums over the threads: a
 * third less for the kernel) into the shared buffer with one read, the field taken from the
 * bytes. Nothing is made per process but its path: a scan made some 1.3 kB of garbage per
 * process (text, match, fields), enough to bring a collection into the next spawn.
 */
function sessionOf(pid: number): number | undefined {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/task/${pid}/stat`, "r");
  } catch {
    return undefined;
  }
  let read = 0;
  try {
    read = readvSync(fd, procBufferList, 0);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
  // After the command's last ")": state, ppid, pgrp, then the session.
  const buffer = procBuffer;
  let at = buffer.lastIndexOf(0x29, read - 1) + 1;
  if (at === 0) return undefined;
  for (let spaces = 0; at < read && spaces < 4; at++) if (buffer[at] === 0x20) spaces++;
  let session = 0;
  let digits = 0;
  for (; at < read && digits < 15; at++, digits++) {
    const byte = buffer[at] as number;
    if (byte < 0x30 || byte > 0x39) break;
    session = session * 10 + (byte - 0x30);
  }
  return digits === 0 || buffer[at] !== 0x20 ? undefined : session;
}

/**
 * After the command's closing parenthesis in `/proc/<pid>/stat`: state ppid pgrp session tty_nr
 * tpgid, 11 fields (flags to nice), num_threads. At most 15 digits: every number read is safe.
 */
const STAT_FIELDS = /\) (\S) -?\d+ (-?\d{1,15}) (-?\d{1,15}) (-?\d{1,15}) (-?\d{1,15})(?: \S+){11} (\d{1,15})(?: |$)/y;

/**
 * Parses `/proc/<pid>/stat`; `comm` may hold spaces and parentheses. `kept`: read
 * through a kept descriptor, and from the main thread's own file (`/proc/<pid>/task/<pid>/stat`),
 * which holds the same fields but costs the kernel less (no sums over the threads): 7 µs instead
 * of 10–18 µs here, read on every check.
 */
function readStat(id: number, kept = false): ProcStat | undefined {
  const text = kept ? readProcFile(pathsOf(id).stat) : readText(`/proc/${id}/stat`);
  if (text === undefined) return undefined;
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return undefined;
  // One match from the command's last ")" (a split into 18 strings and six conversions checked one
  // by one cost half as much again, in code run too seldom to be optimized).
  STAT_FIELDS.lastIndex = close;
  const fields = STAT_FIELDS.exec(text);
  const pid = Number(text.slice(0, open));
  if (fields === null || !Number.isSafeInteger(pid)) return undefined;
  return {
    pid,
    comm: text.slice(open + 1, close),
    state: fields[1] as string,
    pgrp: Number(fields[2]),
    session: Number(fields[3]),
    ttyNr: Number(fields[4]),
    tpgid: Number(fields[5]),
    threads: Number(fields[6]),
  };
}

/**
 * Members of group `pgid` among `root` and its descendants, found through
 * `/proc/<pid>/task/<tid>/children`; `undefined` when the kernel lacks those
 * files.
 */
function groupMembersBelow(root: ProcStat, pgid: number): ProcStat[] | undefined {
  const members: ProcStat[] = [];
  const queue: ProcStat[] = [root];
  const seen = new Set<number>([root.pid]);
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (next.pgrp === pgid) members.push(next);
    const children = childrenOf(next);
    if (children === undefined) return undefined;
    for (const pid of children) {
      if (seen.has(pid) || seen.size > 4096) continue;
      seen.add(pid);
      const stat = readStat(pid, true);
      if (stat !== undefined) queue.push(stat);
    }
  }
  return members;
}

function childrenOf(stat: ProcStat): number[] | undefined {
  const tids = stat.threads > 1 ? listNumeric(`/proc/${stat.pid}/task`) : [stat.pid];
  const pids: number[] = [];
  for (const tid of tids) {
    const text = readProcFile(`/proc/${stat.pid}/task/${tid}/children`);
    if (text === undefined) {
      // Vanished mid-read: no children. Missing file on a live process: unsupported kernel.
      if (existsSync(`/proc/${stat.pid}/task/${tid}`)) return undefined;
      continue;
    }
    for (const word of text.split(" ")) if (word !== "" && word !== "\n") pids.push(Number(word));
  }
  return pids.filter((pid) => Number.isSafeInteger(pid) && pid > 0);
}

function scanProcesses(keep: (stat: ProcStat) => boolean): ProcStat[] {
  const found: ProcStat[] = [];
  for (const pid of listNumeric("/proc")) {
    const stat = readStat(pid);
    if (stat !== undefined && keep(stat)) found.push(stat);
  }
  return found;
}

/** Whether any thread of the process sleeps waiting for input from the terminal `ttyNr`. */
function isBlockedOnTerminal(stat: ProcStat, ttyNr: number): boolean {
  if (taskWaitsOnTerminal(stat.pid, undefined, stat.state, ttyNr)) return true;
  if (stat.threads <= 1 || stat.threads > MAX_THREADS_CHECKED) return false;
  for (const tid of listNumeric(`/proc/${stat.pid}/task`)) {
    if (tid === stat.pid) continue;
    // A running thread's syscall file says "running", so its state need not be read.
    if (taskWaitsOnTerminal(stat.pid, `/proc/${stat.pid}/task/${tid}`, "S", ttyNr)) return true;
  }
  return false;
}

/** `dir`: a thread's directory, or `undefined` for the process's main thread. */
function taskWaitsOnTerminal(pid: number, dir: string | undefined, state: string, ttyNr: number): boolean {
  if (state !== "S") return false;
  const syscall = readProcFile(dir === undefined ? pathsOf(pid).syscall : `${dir}/syscall`);
  if (syscall === undefined || WAIT_TABLE === undefined) return wchanSuggestsTerminal(pid, dir, ttyNr);
  // "<nr> <arg0> <arg1> …" (hex arguments), "-1 …" (asleep outside a syscall) or "running".
  const words = SYSCALL_WORDS.exec(syscall);
  const kind = words === null ? undefined : WAIT_TABLE.get(Number(words[1]));
  if (words === null || kind === undefined) return false;
  const arg0 = Number(words[2]);
  const arg1 = Number(words[3]);
  switch (kind) {
    case "read":
      return isTerminalFd(pid, arg0, ttyNr);
    case "select":
      return selectWatchesTerminal(pid, arg0, arg1, ttyNr);
    case "poll":
      return pollWatchesTerminal(pid, arg0, arg1, ttyNr);
    case "epoll":
      return epollWatchesTerminal(pid, arg0, ttyNr);
  }
}

/** `select(nfds, readfds, …)`: is a terminal descriptor in `readfds`? */
function selectWatchesTerminal(pid: number, nfds: number, readfds: number, ttyNr: number): boolean {
  if (readfds === 0 || !(nfds > 0)) return false;
  const count = Math.min(nfds, 1024);
  const bits = readMemory(pid, readfds, Math.ceil(count / 8));
  for (let fd = 0; fd < count; fd++) {
    const watched = bits === undefined || ((bits[fd >> 3] ?? 0) & (1 << (fd & 7))) !== 0;
    if (watched && isTerminalFd(pid, fd, ttyNr)) return true;
  }
  return false;
}

/** `poll(fds, nfds, …)`: does an entry watch a terminal descriptor for input? */
function pollWatchesTerminal(pid: number, fds: number, nfds: number, ttyNr: number): boolean {
  if (fds === 0 || !(nfds > 0)) return false;
  const count = Math.min(nfds, 4096);
  const entries = readMemory(pid, fds, count * 8); // struct pollfd { int fd; short events; short revents; }
  if (entries === undefined) return isTerminalFd(pid, 0, ttyNr);
  for (let index = 0; index < count; index++) {
    const fd = entries.readInt32LE(index * 8);
    const events = entries.readInt16LE(index * 8 + 4);
    if (fd >= 0 && (events & POLL_INPUT) !== 0 && isTerminalFd(pid, fd, ttyNr)) return true;
  }
  return false;
}

/** `epoll_wait(epfd, …)`: is a terminal descriptor registered for input? */
function epollWatchesTerminal(pid: number, epfd: number, ttyNr: number): boolean {
  const info = readText(`/proc/${pid}/fdinfo/${epfd}`);
  if (info === undefined) return false;
  for (const match of info.matchAll(/^tfd:\s*(\d+)\s+events:\s*([0-9a-f]+)/gm)) {
    const events = Number.parseInt(match[2] ?? "0", 16);
    if ((events & EPOLL_INPUT) !== 0 && isTerminalFd(pid, Number(match[1]), ttyNr)) return true;
  }
  return false;
}

/** Without `/proc/<pid>/syscall`: the kernel wait point, and stdin being the terminal. */
function wchanSuggestsTerminal(pid: number, dir: string | undefined, ttyNr: number): boolean {
  const wchan = readText(`${dir ?? `/proc/${pid}`}/wchan`)?.trim() ?? "";
  return TERMINAL_WCHAN.test(wchan) && isTerminalFd(pid, 0, ttyNr);
}

/**
 * Files known to be a terminal: their mount id and inode (from `/proc/<pid>/fdinfo/<fd>`, see `fileKey`) to the
 * terminal's device number. Only pseudo-terminals (devpts gives pts N the same inode for as long as
 * the mount lives) are kept; `/dev/tty` and the rest are stat'ed every time.
 */
const terminalFiles = new Map<number | string, number>();
const MAX_TERMINAL_FILES = 1024;
/** Major device numbers of Unix 98 pseudo-terminal slaves (`/dev/pts/N`). */
const PTS_MAJORS = new Set([136, 137, 138, 139, 140, 141, 142, 143]);
const FDINFO_FILE = /^mnt_id:\s*(\d{1,15})$[^]*^ino:\s*(\d{1,15})$/m;

/** A file's key in `terminalFiles`: one number where it fits (no string to make and hash per check). */
function fileKey(mountId: number, inode: number): number | string {
  return mountId < 0x100000 && inode < 0x100000000 ? mountId * 0x100000000 + inode : `${mountId}:${inode}`;
}

/**
 * Whether descriptor `fd` of `pid` is the terminal (`/dev/pts/N` or `/dev/tty`). A descriptor's
 * fdinfo (read through a kept descriptor, 3–5 µs) names its file; a file seen before to be this
 * terminal is not stat'ed again (a stat through `/proc/<pid>/fd/<fd>` is 16–22 µs).
 */
function isTerminalFd(pid: number, fd: number, ttyNr: number): boolean {
  if (!Number.isSafeInteger(fd) || fd < 0) return false;
  const info = readProcFile(fdinfoPath(pid, fd));
  const file = info === undefined ? null : FDINFO_FILE.exec(info);
  const key = file === null ? undefined : fileKey(Number(file[1]), Number(file[2]));
  if (key !== undefined && terminalFiles.get(key) === ttyNr) return true;
  try {
    const stats = statSync(`/proc/${pid}/fd/${fd}`);
    if (!stats.isCharacterDevice()) return false;
    if (key !== undefined && stats.rdev === ttyNr && PTS_MAJORS.has((ttyNr >>> 8) & 0xfff)) {
      if (terminalFiles.size >= MAX_TERMINAL_FILES) terminalFiles.delete(terminalFiles.keys().next().value as number | string);
      terminalFiles.set(key, ttyNr);
    }
    return stats.rdev === ttyNr || stats.rdev === DEV_TTY;
  } catch {
    return false;
  }
}

/** Where {@link readMemory} reads what fits (its callers look at it before the next read). */
const memoryScratch = Buffer.allocUnsafe(4096);
const LITTLE_ENDIAN = endianness() === "LE";
/**
 * `[memoryScratch.subarray(0, length)]` for the short lengths read on every check (select's
 * descriptor set is a byte or a few), made once: `readvSync` checks fewer arguments than `readSync`.
 */
const memoryViews: (Buffer[] | undefined)[] = [];
const MAX_MEMORY_VIEW = 128;

function memoryViewOf(length: number): Buffer[] {
  return (memoryViews[length] ??= [memoryScratch.subarray(0, length)]);
}

/**
 * Reads `length` bytes of the process's memory at `address`; `undefined` if not allowed. Up to
 * 4 kB come in a buffer shared by every call: look at it before the next.
 */
function readMemory(pid: number, address: number, length: number, retry = true): Buffer | undefined {
  if (!LITTLE_ENDIAN || !Number.isSafeInteger(address) || address <= 0) return undefined;
  const path = pathsOf(pid).mem;
  const fd = openProcFile(path);
  if (fd === undefined) return undefined;
  let read = 0;
  const buffer = length <= memoryScratch.length ? memoryScratch : Buffer.alloc(length);
  try {
    read = length <= MAX_MEMORY_VIEW ? readvSync(fd, memoryViewOf(length), address) : readSync(fd, buffer, 0, length, address);
  } catch {
    // Not mapped, or the process is gone.
  }
  if (read === length) return buffer;
  // A kept descriptor of mem reads the memory the process had when it was opened: after an exec
  // (same pid, new program) it reads nothing. Opened again once.
  forgetProcFile(path);
  return retry ? readMemory(pid, address, length, false) : undefined;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * Descriptors of the /proc files the foreground checks read again and again (a prompt is confirmed
 * by two checks a moment apart, a running cell is checked every 50 ms): a /proc file read from
 * offset 0 is made afresh, and its descriptor follows the process, not the pid number (once the
 * process is gone, reads fail and the path is opened again). They are all closed once no check
 * ran for a short while, so an idle program holds none.
 */
const procFiles = new Map<string, number>();
/** Kept descriptors at most (see {@link keptProcFilesFor}); read from this process's limit when first needed. */
let maxProcFiles: number | undefined;
const PROC_FILES_IDLE_MS = 200;
/**
 * A buffer with Node's own decoder for a range (what `toString("utf8", start, end)` calls after
 * checking its arguments: about half the cost of that call in code run too seldom to be optimized).
 */
interface RangeDecoding {
  utf8Slice(start: number, end: number): string;
}
const procBuffer = Buffer.allocUnsafe(8192) as Buffer & RangeDecoding;
// Not in Node's documented API: where it is missing, the documented call stands in.
if (typeof procBuffer.utf8Slice !== "function")
  procBuffer.utf8Slice = (start: number, end: number) => procBuffer.toString("utf8", start, end);
/** `procBuffer` as `readvSync` takes it: a read through `readvSync` costs less JavaScript than one through `readSync` (fewer argument checks). */
const procBufferList = [procBuffer];
/** Whether a check used the kept descriptors since the idle timer last looked (cheaper than a clock read per file). */
let procFilesUsed = false;
let procFilesTimer: NodeJS.Timeout | undefined;

/**
 * How many /proc descriptors the checks keep, given this process's soft limit of open files (the
 * text of `/proc/self/limits`, `undefined` when unknown or unlimited): a quarter of it, 64 to 1024.
 * A check of a program at its prompt keeps 4 (stat, syscall, mem, fdinfo), so 1024 serve 256
 * sessions checked in turn; with fewer, the oldest make room (a cycle through more sessions than
 * fit opens each check's files afresh, as every check did before descriptors were kept).
 *
 * @internal
 */
export function keptProcFilesFor(softLimit: string | undefined): number {
  const limit = softLimit === undefined ? Number.NaN : Number(softLimit);
  if (!Number.isSafeInteger(limit)) return 256;
  return Math.min(1024, Math.max(64, Math.floor(limit / 4)));
}

function openProcFile(path: string): number | undefined {
  procFilesUsed = true;
  let fd = procFiles.get(path);
  if (fd !== undefined) return fd;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  // The oldest goes (its check opens it again): clearing them all would make every check of a
  // driver with more sessions than fit open its files afresh.
  maxProcFiles ??= keptProcFilesFor(/^Max open files\s+(\d+)/m.exec(readText("/proc/self/limits") ?? "")?.[1]);
  if (procFiles.size >= maxProcFiles) forgetProcFile(procFiles.keys().next().value as string);
  procFiles.set(path, fd);
  procFilesTimer ??= setTimeout(closeIdleProcFiles, PROC_FILES_IDLE_MS).unref();
  return fd;
}

function forgetProcFile(path: string): void {
  const fd = procFiles.get(path);
  if (fd === undefined) return;
  procFiles.delete(path);
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

function closeProcFiles(): void {
  for (const path of [...procFiles.keys()]) forgetProcFile(path);
  procPaths.clear();
}

function closeIdleProcFiles(): void {
  procFilesTimer = undefined;
  // Closed once a whole period (200 to 400 ms) went by without a check.
  if (!procFilesUsed) closeProcFiles();
  else {
    procFilesUsed = false;
    if (procFiles.size > 0) procFilesTimer = setTimeout(closeIdleProcFiles, PROC_FILES_IDLE_MS).unref();
  }
}

/** A small /proc file, read through a kept descriptor (see `procFiles`). */
function readProcFile(path: string): string | undefined {
  const fd = openProcFile(path);
  if (fd === undefined) return undefined;
  let read: number;
  try {
    read = readvSync(fd, procBufferList, 0);
  } catch {
    // The process is gone (or a new one has the pid): ask again by path.
    forgetProcFile(path);
    return readText(path);
  }
  if (read === procBuffer.length) return readText(path);
  return procBuffer.utf8Slice(0, read);
}

function listNumeric(dir: string): number[] {
  try {
    return readdirSync(dir)
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

/** Whether `pid` is a live process (`/proc/<pid>/stat`): a zombie waiting for its parent counts as gone. */
export function isRunning(pid: number): boolean {
  const state = readStat(pid)?.state;
  return state !== undefined && state !== "Z";
}

/** The argv of `pid` (`/proc/<pid>/cmdline`); empty when it cannot be read. */
export function readCommandLine(pid: number): string[] {
  const text = readText(`/proc/${pid}/cmdline`);
  if (text === undefined || text === "") return [];
  return text.replace(/\0$/, "").split("\0");
}
