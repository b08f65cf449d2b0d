#!/bin/bash
# build.sh PKG: candidate releases of PKG (select.js) → instance lines on stdout, reasons on stderr.
set -u
p=$1; max=${MAX:-3}; W=${NPMSET_WORK:-/tmp/npmset}/work; RELAY=${RELAY:-relay}
safe=$(echo "$p" | sed 's#^@##; s#/#-#g')
d=${NPMSET_WORK:-/tmp/npmset}/survey/$(echo "$p" | tr '/@' '__')
cl=$(ls $d/package | grep -iE '^(changelog|history|changes)(\.md|\.markdown|\.txt)?$' | head -1)
[ -f $d/versions.json ] || npm view "$p" versions --json > $d/versions.json
pack() { # pack VERSION → dir
  local t=$W/$safe/$1
  if [ ! -d $t/package ]; then mkdir -p $t; (cd $t && f=$(npm pack "$p@$1" --silent 2>/dev/null | tail -1) && tar xzf "$f" && rm -f "$f"; top=$(ls -d */ | head -1); [ "$top" != "package/" ] && mv "$top" package) >/dev/null 2>&1; fi
  echo $t/package
}
srcfiles() { # srcfiles DIR: source files by the README's rule
  (cd $1 && find . -type f \( -name '*.js' -o -name '*.mjs' -o -name '*.cjs' -o -name '*.ts' -o -name '*.mts' -o -name '*.cts' -o -name '*.jsx' -o -name '*.tsx' \) \
    ! -name '*.d.ts' ! -name '*.d.mts' ! -name '*.d.cts' ! -name '*.min.js' ! -name '*.umd.js' ! -name '*.bundle.js' \
    | sed 's#^\./##' | grep -vE '(^|/)(dist[^/]*|build|umd|bundles?|node_modules|test|tests|__tests__|spec|testdata|coverage|example|examples|benchmark|benchmarks)/' \
    | grep -vE '(\.test|\.spec)\.[cm]?[jt]sx?$' | grep -vE '(^|/)([^/]*[.-]config|[^/]*\.conf|\.[^/]*rc|Gruntfile|gulpfile|Jakefile)\.[cm]?[jt]s$' | sort)
}
n=0; seen=""
node $(dirname $0)/select.js "$p" "$d/package/$cl" $d/versions.json > $W/$safe.cand 2>/dev/null || { echo "$p: select failed" >&2; exit; }
while read -r line; do
  [ $n -ge $max ] && break
  ver=$(echo "$line" | jq -r .version); prev=$(echo "$line" | jq -r .prev); st=$(echo "$line" | jq -r .entry)
  if echo "$seen" | grep -qxF "$st"; then echo "$p@$ver: same entry as a newer release" >&2; continue; fi
  old=$(pack $prev); new=$(pack $ver)
  [ -f $old/package.json ] && [ -f $new/package.json ] || { echo "$p@$ver: pack failed" >&2; continue; }
  both=$(comm -12 <(srcfiles $old) <(srcfiles $new))
  if echo "$both" | grep -qE '\.(ts|mts|cts|tsx)$'; then both=$(echo "$both" | grep -E '\.(ts|mts|cts|tsx)$'); fi
  diff=$W/$safe/$ver.diff; : > $diff; nch=0
  for f in $both; do
    if ! cmp -s $old/$f $new/$f; then nch=$((nch+1)); git diff --no-index --no-color -U3 --src-prefix=a/ --dst-prefix=b/ $old/$f $new/$f | sed "s#a$old/#a/#g; s#b$new/#b/#g" >> $diff; fi
  done
  if [ $nch -eq 0 ]; then echo "$p@$ver: no source file changed" >&2; continue; fi
  if [ $nch -gt 4 ]; then echo "$p@$ver: $nch source files changed (more than 4: a rewrite or more than the fix)" >&2; continue; fi
  id="$safe-$(echo $ver | tr . _)"
  inst=$($RELAY eval derive --repo $old --diff $diff --id "$id" --statement "$st" --files-only 2>$W/$safe/$ver.derive.err) || { echo "$p@$ver: derive: $(tail -1 $W/$safe/$ver.derive.err)" >&2; continue; }
  nf=$(echo "$inst" | jq '.gold_files|length'); nfn=$(echo "$inst" | jq '.gold_functions|length')
  if [ "$nf" -gt 4 ] || [ "$nfn" -gt 10 ]; then echo "$p@$ver: $nf gold files, $nfn functions (more than 4 / 10)" >&2; continue; fi
  echo "$inst" | jq -c --arg r "npm:$p@$prev" --arg fx "npm:$p@$prev..$ver" --arg src "$cl $ver" '. + {repo: $r, fix: $fx, source: $src}'
  seen="$seen
$st"; n=$((n+1))
done < $W/$safe.cand
