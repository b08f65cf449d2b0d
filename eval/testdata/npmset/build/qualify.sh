#!/bin/bash
# qualify.sh PKG: "PKG NSRC TS" when the latest tarball ships a changelog and >= 3 source files
p=$1; d=${NPMSET_WORK:-/tmp/npmset}/survey/$(echo "$p" | tr '/@' '__')
[ -d $d/package ] || exit
cl=$(ls $d/package | grep -iE '^(changelog|history|changes)(\.md|\.markdown|\.txt)?$' | head -1); [ -n "$cl" ] || exit
source <(sed -n '/^srcfiles()/,/^}/p' $(dirname $0)/build.sh)
n=$(srcfiles $d/package | wc -l); ts=$(srcfiles $d/package | grep -cE '\.(ts|mts|cts|tsx)$')
[ $n -ge 3 ] && echo "$p $n $ts"
