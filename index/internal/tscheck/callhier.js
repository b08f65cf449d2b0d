// callhier.js ROOT [--js] prints the TypeScript language service's outgoing
// calls of every top-level function, function or arrow bound to a
// top-level name, and method, constructor or function-valued field of a
// top-level class in ROOT's .ts/.tsx files (with --js also .js, .jsx,
// .mjs and .cjs; declaration files and node_modules excluded), one line per distinct caller/callee pair:
//
//   caller <TAB> callee <TAB> callee kind <TAB> call lines (comma-separated)
//
// Names are "path/file.ts:Name" or "path/file.ts:Class.member", paths
// relative to ROOT; callees outside ROOT (lib.d.ts, packages) and in
// declaration files are printed with an empty name. Lines starting with
// "caller " list every caller queried; lines "blind " the declarations
// the call hierarchy has no item for (functions bound with var or let),
// neither queried nor reported as callees; lines "nested CALLER <TAB> from
// <TAB> to" the line ranges of functions nested in it, whose calls the
// compiler gives to the nested function.
"use strict";
const ts = require("typescript");
const fs = require("fs");
const path = require("path");

const root = path.resolve(process.argv[2]);
// --js: JavaScript files too (allowJs), for JavaScript packages.
const js = process.argv.includes("--js");
const sourceRe = js ? /\.(ts|tsx|js|jsx|mjs|cjs)$/ : /\.(ts|tsx)$/;
const files = [];
(function walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name.startsWith(".")) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (sourceRe.test(e.name) && !/\.d\.ts$/.test(e.name)) files.push(p);
  }
})(root);

let options = { allowJs: js, checkJs: false, maxNodeModuleJsDepth: 0, jsx: ts.JsxEmit.Preserve, target: ts.ScriptTarget.ES2022, moduleResolution: ts.ModuleResolutionKind.Node10 };
const cfg = path.join(root, "tsconfig.json");
if (fs.existsSync(cfg)) {
  const parsed = ts.getParsedCommandLineOfConfigFile(cfg, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (parsed) options = { ...parsed.options, noEmit: true };
}

const host = {
  getScriptFileNames: () => files,
  getScriptVersion: () => "1",
  getScriptSnapshot: (f) => (fs.existsSync(f) ? ts.ScriptSnapshot.fromString(fs.readFileSync(f, "utf8")) : undefined),
  getCurrentDirectory: () => root,
  getCompilationSettings: () => options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: ts.sys.fileExists,
  readFile: ts.sys.readFile,
  readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists,
  getDirectories: ts.sys.getDirectories,
};
const ls = ts.createLanguageService(host, ts.createDocumentRegistry());

const rel = (f) => path.relative(root, f).split(path.sep).join("/");
function inRoot(f) {
  const r = rel(f);
  return !r.startsWith("..") && !r.includes("node_modules/") && !/\.d\.ts$/.test(r);
}
function key(item) {
  if (!inRoot(item.file)) return "";
  let container = item.containerName;
  if (!container) {
    // Interface members come without their interface's name.
    const sf = ls.getProgram().getSourceFile(item.file);
    let n = sf && ts.getTokenAtPosition(sf, item.selectionSpan.start);
    while (n && !ts.isInterfaceDeclaration(n) && !ts.isClassLike(n) && !ts.isSourceFile(n)) n = n.parent;
    if (n && !ts.isSourceFile(n) && n.name && n.name.text !== item.name) container = n.name.text;
  }
  if (!topLevel(item)) return "";
  const name = container && item.kind !== ts.ScriptElementKind.classElement ? container + "." + item.name : item.name;
  return rel(item.file) + ":" + name;
}

// topLevel reports whether an item is a declaration relay makes a node of:
// top-level, or a member of a top-level class or interface (not a
// function nested in another).
function topLevel(item) {
  const sf = ls.getProgram().getSourceFile(item.file);
  let n = sf && ts.getTokenAtPosition(sf, item.selectionSpan.start);
  let fns = 0;
  // A const-bound function's name lies outside the function: count it, so
  // that one bound inside another function is nested too.
  const d = n && n.parent;
  if (d && ts.isVariableDeclaration(d) && d.initializer && ts.isFunctionLike(d.initializer)) fns++;
  for (; n && !ts.isSourceFile(n); n = n.parent) {
    if (ts.isFunctionLike(n) && n.body !== undefined) fns++;
  }
  return fns <= 1;
}

// callers lists the declarations to query: [position of the name, key].
function callers(sf) {
  const out = [];
  const r = rel(sf.fileName);
  const isFn = (e) => e && (ts.isArrowFunction(e) || ts.isFunctionExpression(e));
  for (const st of sf.statements) {
    if (ts.isFunctionDeclaration(st) && st.body && st.name) out.push([st.name.getStart(sf), r + ":" + st.name.text, st]);
    if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        if (ts.isIdentifier(d.name) && isFn(d.initializer)) out.push([d.name.getStart(sf), r + ":" + d.name.text, d.initializer]);
      }
    }
    if (ts.isClassDeclaration(st) && st.name) {
      const c = st.name.text;
      for (const m of st.members) {
        if (ts.isConstructorDeclaration(m) && m.body) {
          const kw = m.getChildren(sf).find((k) => k.kind === ts.SyntaxKind.ConstructorKeyword);
          if (kw) out.push([kw.getStart(sf), r + ":" + c + ".constructor", m]);
        } else if ((ts.isMethodDeclaration(m) || ts.isGetAccessor(m) || ts.isSetAccessor(m)) && m.body && m.name && ts.isIdentifier(m.name)) {
          out.push([m.name.getStart(sf), r + ":" + c + "." + m.name.text, m]);
        } else if (ts.isPropertyDeclaration(m) && m.name && ts.isIdentifier(m.name) && isFn(m.initializer)) {
          out.push([m.name.getStart(sf), r + ":" + c + "." + m.name.text, m.initializer]);
        }
      }
    }
  }
  return out;
}

// separate reports whether the compiler's call hierarchy treats a nested
// function as a declaration of its own (anonymous callbacks are part of
// the enclosing one).
function separate(n) {
  if (ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isConstructorDeclaration(n) || ts.isGetAccessor(n) || ts.isSetAccessor(n)) return true;
  if (ts.isClassExpression(n) && n.name) return true;
  if (!ts.isArrowFunction(n) && !ts.isFunctionExpression(n)) return false;
  if (ts.isFunctionExpression(n) && n.name) return true;
  const p = n.parent;
  return (ts.isVariableDeclaration(p) || ts.isPropertyDeclaration(p)) && p.initializer === n && ts.isIdentifier(p.name);
}

// nested lists the line ranges of the functions nested in decl that the
// compiler's call hierarchy treats as declarations of their own: it gives
// their calls to them, relay to decl.
function nested(sf, decl) {
  const out = [];
  const visit = (n) => {
    if (n !== decl && separate(n)) {
      out.push([sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1, sf.getLineAndCharacterOfPosition(n.getEnd()).line + 1]);
      return;
    }
    ts.forEachChild(n, visit);
  };
  visit(decl);
  return out;
}

const lines = [];
const program = ls.getProgram();
for (const f of files) {
  const sf = program.getSourceFile(f);
  if (!sf) continue;
  for (const [pos, from, decl] of callers(sf)) {
    // The call hierarchy has no item for a function bound with var or
    // let (only const-bound function expressions count as declarations):
    // it lists neither its calls nor the calls of it.
    let item;
    try {
      item = ls.prepareCallHierarchy(f, pos);
    } catch (e) {
      item = undefined;
    }
    if (!item || (Array.isArray(item) && item.length === 0)) {
      lines.push("blind " + from);
      continue;
    }
    lines.push("caller " + from);
    let calls;
    try {
      calls = ls.provideCallHierarchyOutgoingCalls(f, pos);
    } catch (e) {
      continue;
    }
    const byKey = new Map();
    for (const c of calls) {
      const k = key(c.to) + "\t" + c.to.kind;
      const ls = byKey.get(k) || new Set();
      for (const sp of c.fromSpans) ls.add(sf.getLineAndCharacterOfPosition(sp.start).line + 1);
      byKey.set(k, ls);
    }
    for (const [k, ls] of byKey) lines.push(from + "\t" + k + "\t" + [...ls].join(","));
    for (const [a, b] of nested(sf, decl)) lines.push("nested " + from + "\t" + a + "\t" + b);
  }
}
process.stdout.write(lines.join("\n") + "\n");
