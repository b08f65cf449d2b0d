// select.js PKG CHANGELOG_FILE VERSIONS_JSON: print candidate releases as JSON lines
// {pkg, version, prev, entry} by the rule of eval/testdata/npmset/README.md.
const fs = require('fs');
const semver = require('process.env.NPM_SEMVER || "/usr/lib/node_modules/npm/node_modules/semver"');
const [pkg, clFile, versFile] = process.argv.slice(2);
const text = fs.readFileSync(clFile, 'utf8').replace(/\r/g, '');
const versions = JSON.parse(fs.readFileSync(versFile, 'utf8')).filter(v => !semver.prerelease(v)).sort(semver.compare);
const lines = text.split('\n');
const verRe = /v?(\d+\.\d+\.\d+)(?![\w.-]*-(alpha|beta|rc))/;
function headingVersion(i) {
  const l = lines[i];
  const next = lines[i + 1] || '';
  let m;
  if (/^#{1,4}\s/.test(l) && (m = l.match(verRe)) && !/^#{1,4}\s+(bug|feat|fix|chore|other|commits|merged|closed)/i.test(l)) return m[1];
  if (/^(=+|-+)\s*$/.test(next) && (m = l.match(/^\s*\[?v?(\d+\.\d+\.\d+)\]?\b/))) return m[1];
  return null;
}
const sections = [];
let cur = null;
for (let i = 0; i < lines.length; i++) {
  const v = headingVersion(i);
  if (v) { cur = { version: v, body: [] }; sections.push(cur); continue; }
  if (cur) cur.body.push(lines[i]);
}
const ignored = [
  /^\[(tests?|dev ?deps|deps|meta|docs?|readme|actions|ci|eslint|lint|dev|ignore|npmignore|types?\s*tests?)\]/i,
  /^(deps|dev-?deps|docs?|test|tests|ci|chore|build|lint|style|perf\(deps\)|refactor|release)(\(.*?\))?!?:/i,
  /^(bump|upgrade|update)\b.*\b(dependenc|dep|deps|eslint|version|devdependenc|packages?|npm)\b/i,
  /^merge\b/i, /^v?\d+\.\d+\.\d+\s*$/, /only apps should have lockfiles/i, /^(add|update)\s+(readme|changelog|license|funding|security|contributing)/i,
  /\b(github actions|travis|appveyor|\.npmignore|lockfile|code ?coverage|nyc|eslint config)\b/i, /^(initial|first) (commit|release)/i,
];
const isFix = e => /^\[?(fix|bug ?fix|fixed|fixes|fixing)\b/i.test(e);
for (const s of sections) {
  let sub = '';
  const entries = [];
  for (const l of s.body) {
    const h = l.match(/^#{2,6}\s+(.*)/);
    if (h) { sub = h[1].trim(); continue; }
    const m = l.match(/^( {0,3})[*-]\s+(.*)/);
    if (m) entries.push({ text: m[2].trim(), sub });
    else if (/^\s{4,}\S/.test(l) && entries.length && !/^\s*[*-]\s/.test(l)) entries[entries.length - 1].text += ' ' + l.trim();
  }
  const code = entries.filter(e => !ignored.some(r => r.test(e.text)) && !/^(documentation|docs|tests?|miscellaneous|chore|build|ci|dependencies|dev dependencies)/i.test(e.sub));
  if (code.length !== 1) continue;
  const e = code[0];
  if (!(isFix(e.text) || /^(bug ?fix(es)?|fixe[sd]|fix)\b/i.test(e.sub))) continue;
  const idx = versions.indexOf(s.version);
  if (idx <= 0) continue;
  let st = e.text
    .replace(/\s*\(?\[[0-9a-f]{7,40}\]\([^)]*\)\)?/g, '')      // commit links
    .replace(/\s*\(?\[?#\d+\]?(\([^)]*\))?\)?/g, '')            // issue/PR refs
    .replace(/\s*,?\s*closes\s*(,\s*)*$/i, '')
    .replace(/\s+by\s+@[\w-]+.*$/i, '')                          // credits
    .replace(/\s*\(@[\w-]+\)/g, '')
    .replace(/\s*\[`?[0-9a-f]{7,40}`?\]\([^)]*\)/g, '')
    .replace(/\s*`[0-9a-f]{7,40}`\s*$/g, '')
    .replace(/\]\([^)]*\)/g, ']').replace(/\[([^\]]*)\]/g, (m, x) => /^(fix|bug ?fix)$/i.test(x) ? m : x)
    .replace(/\s+/g, ' ').trim().replace(/[\s,;]+$/, '');
  if (st.split(/\s+/).length < 4) continue;
  console.log(JSON.stringify({ pkg, version: s.version, prev: versions[idx - 1], entry: st }));
}
