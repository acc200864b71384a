#!/usr/bin/env node
// The `verdict` command of the npm package verdict-cli: finds the compiled binary in the
// platform package npm installed beside it (one of its optional dependencies, e.g.
// @verdict-cli/linux-x64-gnu) and runs it with this process's arguments, standard streams and
// exit status. VERDICT_BINARY names another binary to run instead.
"use strict";

const { spawn } = require("child_process");
const path = require("path");

const platforms = require("../platforms.json");

const INSTALL_DOCS = "https://github.com/verdict-dev/verdict/blob/main/docs/install.md";

// Exit status of a shim that could not start verdict: nothing was verified ("could not verify").
const COULD_NOT_RUN = 2;

/** "glibc" or "musl" on Linux (the runtime report names glibc only when Node runs on it). */
function linuxLibc() {
  try {
    if (process.report && typeof process.report.getReport === "function") {
      process.report.excludeNetwork = true;
      const header = process.report.getReport().header || {};
      return header.glibcVersionRuntime ? "glibc" : "musl";
    }
  } catch {
    // An older Node without the report: decide from the loader below.
  }
  const fs = require("fs");
  return fs.existsSync("/etc/alpine-release") ? "musl" : "glibc";
}

/** This machine's platform as npm names it, with the C library on Linux. */
function currentPlatform() {
  const libc = process.platform === "linux" ? linuxLibc() : undefined;
  const shown = [process.platform, process.arch, libc].filter(Boolean).join(" ");
  return { os: process.platform, cpu: process.arch, libc, shown };
}

function fail(lines) {
  process.stderr.write(lines.map((line) => `verdict: ${line}\n`).join(""));
  process.exit(COULD_NOT_RUN);
}

/** The path of the binary to run, or an exit with what is missing and what to do. */
function findBinary() {
  if (process.env.VERDICT_BINARY) {
    return process.env.VERDICT_BINARY;
  }
  const here = currentPlatform();
  const platform = platforms.find(
    (p) => p.os === here.os && p.cpu === here.cpu && (p.libc === undefined || p.libc === here.libc),
  );
  if (!platform) {
    fail([
      `verdict-cli has no binary for this platform (${here.shown}).`,
      `install verdict another way (cargo install verdict-cli, or pip install verdict-cli): ${INSTALL_DOCS}`,
      "then run that binary, or set VERDICT_BINARY to its path.",
    ]);
  }
  const exe = process.platform === "win32" ? "verdict.exe" : "verdict";
  try {
    return require.resolve(`${platform.package}/bin/${exe}`);
  } catch {
    fail([
      `the package ${platform.package}, which carries the binary for this platform (${here.shown}), is not installed.`,
      "it is an optional dependency of verdict-cli: npm leaves it out when installing with --omit=optional",
      "or --no-optional, or from a lockfile written on another platform.",
      `reinstall without those options (npm install verdict-cli), or add it: npm install ${platform.package}`,
      `or set VERDICT_BINARY to a verdict binary (${INSTALL_DOCS}).`,
    ]);
  }
  return undefined;
}

function main() {
  const binary = findBinary();
  const child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });
  // A terminal's Ctrl-C already reaches verdict (it is in the same process group): the shim only
  // stays alive for it. Signals sent to the shim alone are passed on.
  const forward = { SIGINT: () => {}, SIGTERM: null, SIGHUP: null };
  for (const signal of Object.keys(forward)) {
    forward[signal] = forward[signal] || (() => child.kill(signal));
    process.on(signal, forward[signal]);
  }
  child.on("error", (error) => {
    fail([`failed to start ${binary}: ${error.message}`]);
  });
  child.on("exit", (code, signal) => {
    if (signal) {
      // End the way verdict ended, so that the caller sees the same signal.
      for (const name of Object.keys(forward)) {
        process.removeListener(name, forward[name]);
      }
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code === null ? COULD_NOT_RUN : code);
  });
}

main();
