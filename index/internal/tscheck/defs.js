// defs.js ROOT prints, for the declarations of ROOT's JavaScript files,
// the in-repository declarations their calls go to, by the TypeScript
// language service's go-to-definition (allowJs) on each call's callee.
// The call hierarchy (callhier.js) has no item for a function assigned
// to a property (Route.prototype.dispatch = function …, proto.handle =
// function …) and resolves no call of one; go-to-definition resolves
// both, through JavaScript's expando declarations.
//
// Declarations: top-level function declarations, functions bound to a
// top-level name, methods of top-level classes, functions assigned at
// top level to X.m or X.prototype.m (X a top-level name) or to exports.m,
// and the getter
// or value function of Object.defineProperty(X[.prototype], "m", …).
// Every call inside one (nested functions and callbacks included, as
// relay gives their calls to the enclosing declaration) counts. Output,
// one line per distinct pair, keys "path/file.js:Name" or
// "path/file.js:Owner.member":
//
//   caller <TAB> callee
//
// "caller KEY" for every declaration queried, and "blind <TAB> caller
// <TAB> line <TAB> name" for every call the service resolves to nothing.
"use strict";
const ts = require("typescript");
const fs = require("fs");
const path = require("path");

const root = path.resolve(process.argv[2]);
const files = [];
(function walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name.startsWith(".")) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (/\.(js|cjs|mjs)$/.test(e.name) && !/\.min\.js$/.test(e.name)) files.push(p);
  }
})(root);

const options = { allowJs: true, checkJs: false, maxNodeModuleJsDepth: 0, target: ts.ScriptTarget.ES2022, moduleResolution: ts.ModuleResolutionKind.Node10 };
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
const program = ls.getProgram();
const rel = (f) => path.relative(root, f).split(path.sep).join("/");
const isFn = (e) => e && (ts.isFunctionExpression(e) || ts.isArrowFunction(e));

// assigned returns [owner, member] for X.m or X.prototype.m, X an identifier.
function assigned(left) {
  if (!ts.isPropertyAccessExpression(left) || !ts.isIdentifier(left.name)) return undefined;
  const o = left.expression;
  if (ts.isIdentifier(o) && o.text !== "exports" && o.text !== "module") return [o.text, left.name.text];
  if (ts.isPropertyAccessExpression(o) && o.name.text === "prototype" && ts.isIdentifier(o.expression)) return [o.expression.text, left.name.text];
  return undefined;
}

// decls lists a file's declarations: [key, function node].
function decls(sf) {
  const out = [];
  const r = rel(sf.fileName);
  for (const st of sf.statements) {
    if (ts.isFunctionDeclaration(st) && st.body && st.name) out.push([r + ":" + st.name.text, st]);
    if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        let init = d.initializer;
        // var proto = module.exports = function () {}
        while (init && ts.isBinaryExpression(init) && init.operatorToken.kind === ts.SyntaxKind.EqualsToken) init = init.right;
        if (ts.isIdentifier(d.name) && isFn(init)) out.push([r + ":" + d.name.text, init]);
      }
    }
    if (ts.isClassDeclaration(st) && st.name) {
      for (const m of st.members) {
        if ((ts.isMethodDeclaration(m) || ts.isConstructorDeclaration(m)) && m.body) {
          const name = ts.isConstructorDeclaration(m) ? "constructor" : m.name && ts.isIdentifier(m.name) ? m.name.text : "";
          if (name) out.push([r + ":" + st.name.text + "." + name, m]);
        }
      }
    }
    if (!ts.isExpressionStatement(st)) continue;
    const e = st.expression;
    if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      // a.b = a.c = function c() {}: the function is a.c's (relay names it by the last).
      let last, v = e;
      while (ts.isBinaryExpression(v) && v.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
        const a = assigned(v.left);
        if (!a) { last = undefined; break; }
        last = a;
        v = v.right;
      }
      if (last && isFn(v)) out.push([r + ":" + last[0] + "." + last[1], v]);
      // module.exports = function f() {}: relay names it f (default when anonymous).
      if (e.left.getText(sf) === "module.exports" && isFn(e.right)) {
        out.push([r + ":" + (e.right.name ? e.right.name.text : "default"), e.right]);
      }
      // exports.f = function () {} and module.exports.f = …: relay names them f.
      const l = e.left.getText(sf).match(/^(?:module\.)?exports\.([A-Za-z_$][\w$]*)$/);
      if (l && isFn(e.right)) out.push([r + ":" + l[1], e.right]);
    }
    if (ts.isCallExpression(e) && e.expression.getText(sf) === "Object.defineProperty" && e.arguments.length === 3) {
      const [target, name, desc] = e.arguments;
      let owner = target.getText(sf).replace(/\.prototype$/, "");
      if (!/^[A-Za-z_$][\w$]*$/.test(owner) || !ts.isStringLiteral(name) || !ts.isObjectLiteralExpression(desc)) continue;
      for (const p of desc.properties) {
        const k = p.name && ts.isIdentifier(p.name) ? p.name.text : "";
        const fn = ts.isPropertyAssignment(p) ? p.initializer : ts.isMethodDeclaration(p) ? p : undefined;
        if ((k === "get" || k === "value") && fn && (isFn(fn) || ts.isMethodDeclaration(fn))) {
          out.push([r + ":" + owner + "." + name.text, fn]);
          break;
        }
      }
    }
  }
  return out;
}

// keyAt names the declaration at a definition: the key decls gives it, or
// "" for anything else (a parameter, a local, a nested function).
const byNode = new Map();
function keyAt(def) {
  if (def.fileName.includes("node_modules") || /\.d\.ts$/.test(def.fileName)) return "";
  const sf = program.getSourceFile(def.fileName);
  if (!sf) return "";
  let n = ts.getTokenAtPosition(sf, def.textSpan.start);
  for (; n && !ts.isSourceFile(n); n = n.parent) {
    if (byNode.has(n)) return byNode.get(n);
    // this.x = … in a body: a property, not a declaration.
    if (ts.isExpressionStatement(n) && !ts.isSourceFile(n.parent)) return "";
    // X.m = function () {}: the definition is the property name on the left.
    if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      let v = n.right;
      while (ts.isBinaryExpression(v) && v.operatorToken.kind === ts.SyntaxKind.EqualsToken) v = v.right;
      if (byNode.has(v)) return byNode.get(v);
    }
    if (ts.isVariableDeclaration(n) && n.initializer) {
      let v = n.initializer;
      while (ts.isBinaryExpression(v) && v.operatorToken.kind === ts.SyntaxKind.EqualsToken) v = v.right;
      if (byNode.has(v)) return byNode.get(v);
    }
    if (ts.isClassDeclaration(n) && n.name && ts.isSourceFile(n.parent)) {
      // new C() with no constructor: the class.
      return rel(sf.fileName) + ":" + n.name.text;
    }
  }
  return "";
}

const all = [];
for (const f of files) {
  const sf = program.getSourceFile(f);
  if (!sf) continue;
  for (const [key, fn] of decls(sf)) {
    byNode.set(fn, key);
    all.push([f, sf, key, fn]);
  }
}
const lines = [];
for (const [f, sf, key, fn] of all) {
  lines.push("caller " + key);
  const seen = new Set();
  const visit = (n) => {
    if (ts.isCallExpression(n) || ts.isNewExpression(n)) {
      const c = n.expression;
      const at = ts.isPropertyAccessExpression(c) ? c.name : c;
      let defs;
      try {
        defs = ls.getDefinitionAtPosition(f, at.getStart(sf)) || [];
      } catch (e) {
        defs = [];
      }
      if (defs.length === 0) {
        // The service cannot resolve it (a receiver of unknown type, this
        // in a method of an object it does not type): relay's edges from
        // this site are neither hits nor misses.
        const line = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
        lines.push("blind\t" + key + "\t" + line + "\t" + at.getText(sf));
      }
      for (const d of defs) {
        const k = keyAt(d);
        if (k && !seen.has(k)) {
          seen.add(k);
          lines.push(key + "\t" + k);
        }
      }
    }
    ts.forEachChild(n, visit);
  };
  ts.forEachChild(fn, visit);
}
process.stdout.write(lines.join("\n") + "\n");
