package main

import "testing"

// TestIndexPython indexes a small Python repository and answers graph
// callers and inheritors on it; a call resolved by name only ends the
// callers after the exact answer, a function passed to a parameter the
// callee calls is called by the callee and referenced where it is passed.
func TestIndexPython(t *testing.T) {
	t.Parallel()
	repo := writeRepo(t, map[string]string{
		"app/__init__.py": "",
		"app/base.py":     "class Handler:\n    def handle(self, x):\n        return self.check(x)\n\n    def check(self, x):\n        return x\n",
		"app/json_handler.py": "from .base import Handler\n\n\nclass JSONHandler(Handler):\n    def handle(self, x):\n" +
			"        return super().handle(x)\n\n\ndef serve(x):\n    return JSONHandler().handle(x)\n",
		"app/use.py": "def run(h):\n    return h.check(1)  # h's class is unknown\n\n\n" +
			"def register(cb):\n    return cb(2)\n\n\ndef setup():\n    return register(run)\n",
	})
	checkLanguage(t, langRun{repo: repo, indexed: []string{"Python: 4 files"}, graph: []cliWant{
		{[]string{"graph", "callers", "Handler.handle"}, "app.json_handler.JSONHandler.handle (app/json_handler.py:5)"},
		{[]string{"graph", "callers", "Handler.check"}, "app.base.Handler.handle (app/base.py:2)"},
		{[]string{"graph", "inheritors", "app.base.Handler"}, "app.json_handler.JSONHandler (app/json_handler.py:4) class"},
		{[]string{"graph", "methods", "JSONHandler"}, "app.json_handler.JSONHandler.handle (app/json_handler.py:5) method"},
		{[]string{"graph", "callers", "serve"}, "No callers of app.json_handler.serve"},
		{[]string{"graph", "callers", "Handler.check"}, "app.base.Handler.handle (app/base.py:2) method — calls at app/base.py:3\n" +
			"1 further possible caller by name only (not type-checked): app.use.run at app/use.py:2."},
		{[]string{"graph", "callees", "app.use.run"}, "1 possible callee by name only (not type-checked): app.base.Handler.check at app/use.py:2."},
		{[]string{"graph", "callers", "app.use.run"}, "1. app.use.register (app/use.py:5) function — calls at app/use.py:6\n" +
			"2. app.use.setup (app/use.py:9) function — referenced as a value at app/use.py:10"},
		{[]string{"graph", "callers", "Handler.check", "--json"}, `"relation": "possible caller by name only (not type-checked)"`},
	}})
}
