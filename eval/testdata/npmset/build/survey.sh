#!/bin/bash
# survey.sh PKG: pack the latest version, print PKG VERSION CHANGELOG SRCFILES
p=$1; d=${NPMSET_WORK:-/tmp/npmset}/survey/$(echo "$p" | tr '/@' '__'); mkdir -p "$d"; cd "$d" || exit
if [ ! -d package ]; then
  f=$(npm pack "$p" --silent 2>/dev/null | tail -1); [ -f "$f" ] || { echo "$p - packfail"; exit; }
  tar xzf "$f" 2>/dev/null; rm -f "$f"
  top=$(ls -d */ | head -1); [ "$top" != "package/" ] && mv "$top" package
fi
v=$(node -p "require('./package/package.json').version")
cl=$(cd package && ls | grep -iE '^(changelog|history|changes)(\.md|\.markdown|\.txt)?$' | head -1)
nsrc=$(cd package && find . -type f \( -name '*.js' -o -name '*.mjs' -o -name '*.cjs' -o -name '*.ts' -o -name '*.mts' -o -name '*.cts' \) ! -name '*.d.ts' ! -name '*.d.mts' ! -name '*.d.cts' ! -name '*.min.js' | wc -l)
nts=$(cd package && find . -type f \( -name '*.ts' -o -name '*.mts' \) ! -name '*.d.ts' ! -name '*.d.mts' | wc -l)
echo "$p $v cl=${cl:--} src=$nsrc ts=$nts"
