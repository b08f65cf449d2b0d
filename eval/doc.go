// Package eval owns the localization eval (`relay eval`): [Instance]s
// (a problem statement and the gold files and functions of its fix, JSON
// lines), [Score] and [Summarize] (file Acc@1/5/10, function Acc@5/10,
// all/any, MRR), and [Run], which localizes each instance with the relay
// pipeline (retrieve's Searcher.Localize), a plain BM25-over-files
// baseline and, given an [AgentLocalizer], a model's cited locations
// ([PredictFromCites]).
//
// [GoldFromDiff] and [DeriveFromModules] derive an instance's gold files
// and functions from the real fix ([DiffTrees] diffs two source trees);
// [GoldFromDiffGraph] does it for every language the code graph indexes,
// mapping changed lines to the innermost function or method node.
// [RunRealIssues] runs a real-issue set (tracker issues with their merged
// fixes, base trees as git bundles; `relay eval real`): cached checkouts,
// derived gold functions, relay next to the baseline, per repository;
// [MaterializeCheckouts] fills the checkouts from the module cache.
// [ReadInstances], [Gold.Instance], [NeedsGraph], [Report.AllFailed],
// [DefaultRealCache] and [RealReport.WriteFiles] are what every front end
// of the eval shares (files.go); the CLI keeps flags, tables and exit
// status. Three
// sets live in testdata: realset (real fixes of real Go projects, figures
// in realset_stats.txt from TestRealSet), npmset (real fixes of npm
// packages, checkouts "npm:NAME@VERSION" fetched with npm pack
// ([NPMPackage], [ExtractTarball]), a held-out part by [HeldOut], figures
// per part and per package in npmset_stats.txt from TestNPMSet) and devset
// (hand-written, figures in eval_stats.txt from TestDevSet); the real-issue set itself stays
// outside the repository, its summary figures are in realissues_stats.txt
// (TestRealIssues, RELAY_REALISSUES). Those files are golden:
// [CompareFigures] fails a run that ranks any instance lower or lowers any
// summary figure (see the DESIGN note in figures.go); -update records a
// new run.
//
// eval imports graphdb, retrieve, udiff, internal/lines and index (for
// FuncLocName, so derived gold names match the graph's); none imports it back.
package eval
