// Verdaccio chores for scripts/bench, all against 127.0.0.1 only:
//   free-port                      print a free loopback TCP port
//   config <dir> <port>            write <dir>/config.yaml (storage and htpasswd in <dir>, no
//                                  uplinks, anyone reads, authenticated users publish)
//   wait <url> <seconds>           poll GET <url>/-/ping until it answers 200
//   publish <url> <pkg-dir> <tgz>  create a user (one PUT /-/user/org.couchdb.user:<name>) and
//                                  publish <tgz> (built by `npm pack` from <pkg-dir>) as `latest`
//                                  by an HTTP PUT of an npm publish document
// The same approach as tests/it/verdaccio.rs.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { basename, join } from "node:path";

const [command, ...args] = process.argv.slice(2);

function loopbackOnly(url) {
  const host = new URL(url).hostname;
  if (host !== "127.0.0.1") throw new Error(`refusing to talk to ${host}: loopback only`);
  return url.replace(/\/?$/, "/");
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  console.log(port);
}

function config(dir, port) {
  const q = (s) => JSON.stringify(s);
  writeFileSync(
    join(dir, "config.yaml"),
    `storage: ${q(join(dir, "storage"))}
auth:
  htpasswd:
    file: ${q(join(dir, "htpasswd"))}
    max_users: 100
uplinks: {}
packages:
  '**':
    access: $all
    publish: $authenticated
listen: 127.0.0.1:${port}
log: {type: stdout, level: warn}
`,
  );
}

async function wait(url, seconds) {
  const base = loopbackOnly(url);
  const deadline = Date.now() + Number(seconds) * 1000;
  for (;;) {
    try {
      const reply = await fetch(`${base}-/ping`);
      if (reply.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${base} did not answer /-/ping within ${seconds} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function publish(url, pkgDir, tgzPath) {
  const base = loopbackOnly(url);
  const user = "finch-bench";
  const created = await fetch(`${base}-/user/org.couchdb.user:${user}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: user, password: "finch-bench-password" }),
  });
  if (created.status !== 201) throw new Error(`create user: HTTP ${created.status} ${await created.text()}`);
  const { token } = await created.json();

  const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  const tarball = readFileSync(tgzPath);
  const file = `${pkg.name}-${pkg.version}.tgz`;
  const doc = {
    _id: pkg.name,
    name: pkg.name,
    "dist-tags": { latest: pkg.version },
    versions: {
      [pkg.version]: {
        ...pkg,
        _id: `${pkg.name}@${pkg.version}`,
        dist: {
          tarball: `${base}${pkg.name}/-/${file}`,
          shasum: createHash("sha1").update(tarball).digest("hex"),
          integrity: `sha512-${createHash("sha512").update(tarball).digest("base64")}`,
        },
      },
    },
    _attachments: {
      [file]: { content_type: "application/octet-stream", data: tarball.toString("base64"), length: tarball.length },
    },
  };
  const reply = await fetch(`${base}${encodeURIComponent(pkg.name)}`, {
    method: "PUT",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(doc),
  });
  if (reply.status !== 201) throw new Error(`publish: HTTP ${reply.status} ${await reply.text()}`);
  console.error(`verdaccio: published ${pkg.name}@${pkg.version} (${basename(tgzPath)}, ${tarball.length} bytes)`);
}

const commands = {
  "free-port": freePort,
  config,
  wait,
  publish,
};
if (!commands[command]) {
  console.error("usage: node benches/verdaccio.mjs free-port | config <dir> <port> | wait <url> <s> | publish <url> <pkg-dir> <tgz>");
  process.exit(2);
}
try {
  await commands[command](...args);
} catch (err) {
  console.error(`verdaccio.mjs ${command}: ${err.message}`);
  process.exit(1);
}
