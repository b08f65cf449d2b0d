package memstore_test

import (
	"testing"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/memstore"
	"github.com/relayhq/relay/graphdb/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) graphdb.Store {
		s := memstore.New()
		t.Cleanup(func() { s.Close() })
		return s
	})
}
