package index

import "github.com/relayhq/relay/graphdb/memstore"

// memStore is the in-memory store the indexer's tests write to: the one
// graphdb/memstore that passes the storetest conformance suite.
type memStore = memstore.Store

func newMemStore() *memStore { return memstore.New() }
