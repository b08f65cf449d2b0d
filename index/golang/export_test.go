package golang

import (
	"go/types"
	"testing"
)

// SetTestHookListed sets the hook that runs between listing and loading
// (nil: none) until the test ends.
func SetTestHookListed(t testing.TB, hook func(root string)) {
	testHookListed = hook
	t.Cleanup(func() { testHookListed = nil })
}

// SetTestHookChecked sets the hook that receives the packages each pass
// checks from source until the test ends.
func SetTestHookChecked(t testing.TB, hook func(ids []string)) {
	testHookChecked = hook
	t.Cleanup(func() { testHookChecked = nil })
}

// ResetDepCache empties the cache of checked dependencies shared by the
// runs of the process.
func ResetDepCache() {
	depCache.Lock()
	depCache.m = map[string]*types.Package{}
	depCache.Unlock()
}

var (
	CallerGoFlags  = callerGoFlags
	ScreenGenerics = screenGenerics
)
