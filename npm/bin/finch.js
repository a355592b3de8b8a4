#!/usr/bin/env node
// The launcher of the `finch-minitools` npm package (bins `finch` and `finch-minitools`).
//
// finch is a native program; npm installs it as one small main package (this file and
// platforms.json) plus the one platform package that fits the machine, chosen by npm from the
// platform packages' `os`/`cpu`/`libc` fields among the main package's optionalDependencies.
// This launcher finds that package's binary and runs it: the same arguments, the same stdin,
// stdout and stderr (inherited, so a terminal stays a terminal), and it ends the way the binary
// ended: with its exit code, or killed by the same signal. A stop signal sent to the launcher
// alone (SIGINT, SIGTERM, SIGHUP, SIGQUIT) is passed on to the binary; Ctrl-C at a terminal
// reaches both, and the launcher waits for the binary to end.
//
// FINCH_BINARY=<path> runs that executable instead (a finch you built yourself).
//
// Plain CommonJS on node's own modules only: nothing else is loaded at run time.
'use strict';

const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');

const PACKAGE = 'finch-minitools';
const platforms = require('../platforms.json');

/** Prints `lines` as finch prints its errors and ends with exit 1 (finch's "error"). */
function fail(lines) {
  process.stderr.write(`Error: ${lines.join('\n')}\n`);
  process.exit(1);
}

function isFile(file) {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Whether this is a Linux without glibc (musl, as on Alpine): npm skips glibc packages there. */
function linuxWithoutGlibc() {
  if (process.platform !== 'linux' || !process.report) return false;
  try {
    const header = process.report.getReport().header;
    return !header.glibcVersionRuntime;
  } catch {
    return false;
  }
}

const BUILD_IT =
  'build finch from source (https://rustup.rs, then `cargo install --locked --path .` in a ' +
  'checkout of finch) and point FINCH_BINARY at the executable it installs';

/** The path of the finch executable to run, or a clear error saying what to do. */
function findBinary() {
  const override = process.env.FINCH_BINARY;
  if (override) {
    if (!isFile(override)) {
      fail([
        `FINCH_BINARY is set to ${override}, which is not a file.`,
        '  Unset FINCH_BINARY to use the finch this package installed, or point it at a finch executable.',
      ]);
    }
    return override;
  }
  const key = `${process.platform}-${process.arch}`;
  const platform = platforms[key];
  if (!platform) {
    fail([
      `${PACKAGE} has no finch binary for this platform (${key}).`,
      `  Binaries are published for: ${Object.keys(platforms).join(', ')}.`,
      `  To use finch here, ${BUILD_IT}.`,
    ]);
  }
  let dir;
  try {
    dir = path.dirname(require.resolve(`${platform.package}/package.json`));
  } catch {
    const musl = platform.libc === 'glibc' && linuxWithoutGlibc();
    fail([
      musl
        ? `${PACKAGE} has no finch binary for this Linux: the ${key} binary (${platform.package}) needs glibc, and this system has none (musl?).`
        : `the package ${platform.package}, which holds finch for ${key}, is not installed.`,
      musl
        ? `  To use finch here, ${BUILD_IT}.`
        : `  npm leaves it out when optional dependencies are omitted (--omit=optional, --no-optional, ` +
          `omit=optional in .npmrc) or when the lock file was made on another platform. ` +
          `Reinstall with them: \`npm i -g ${PACKAGE} --include=optional\` ` +
          `(or \`npm i ${platform.package}\` beside it), or ${BUILD_IT}.`,
    ]);
  }
  const binary = path.join(dir, 'bin', platform.binary);
  if (!isFile(binary)) {
    fail([
      `${platform.package} is installed at ${dir} but holds no ${path.join('bin', platform.binary)}.`,
      `  Reinstall ${PACKAGE}, or ${BUILD_IT}.`,
    ]);
  }
  return binary;
}

/** The stop signals passed on to the binary (Windows delivers Ctrl-C to the binary itself). */
const FORWARDED =
  process.platform === 'win32' ? [] : ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];

function run(binary) {
  const child = spawn(binary, process.argv.slice(2), { stdio: 'inherit' });
  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill(signal);
      } catch {
        // The binary has just ended: its end is reported below.
      }
    }
  };
  // A listener keeps the launcher alive until the binary has ended.
  const handlers = FORWARDED.map((signal) => [signal, () => forward(signal)]);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  if (process.platform === 'win32') process.on('SIGINT', () => {});

  child.on('error', (error) => {
    const why =
      error.code === 'EACCES'
        ? 'it is not executable (chmod +x it, or reinstall)'
        : error.code === 'ENOENT'
          ? 'it was not found'
          : error.code === 'ENOEXEC' || error.code === 'EBADARCH'
            ? 'it is not a program for this machine'
            : error.message;
    fail([`cannot run ${binary}: ${why}.`, `  Reinstall ${PACKAGE}, or ${BUILD_IT}.`]);
  });

  child.on('exit', (code, signal) => {
    for (const [name, handler] of handlers) process.removeListener(name, handler);
    if (signal) {
      // Die of the same signal: with no listener left, its default action applies.
      process.kill(process.pid, signal);
      // Still here (the signal is ignored in this process): the shell's convention.
      const number = require('os').constants.signals[signal] || 0;
      process.exit(128 + number);
    }
    process.exit(code === null ? 1 : code);
  });
}

run(findBinary());
