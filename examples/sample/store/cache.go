package store

import "sync"

// Cache is a small generic read-through cache in front of a loader.
type Cache[K comparable, V any] struct {
	mu    sync.Mutex
	items map[K]V
	load  func(K) (V, error)
}

// NewCache returns a Cache that fills misses with load.
func NewCache[K comparable, V any](load func(K) (V, error)) *Cache[K, V] {
	return &Cache[K, V]{items: map[K]V{}, load: load}
}

// Get returns the cached value for k, loading it on a miss.
func (c *Cache[K, V]) Get(k K) (V, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.items[k]; ok {
		return v, nil
	}
	v, err := c.load(k)
	if err != nil {
		var zero V
		return zero, err
	}
	c.items[k] = v
	return v, nil
}

// CachedReader is a Reader that caches another Reader's answers.
type CachedReader struct {
	Reader
	cache *Cache[string, User]
}

// NewCachedReader wraps r with a cache.
func NewCachedReader(r Reader) *CachedReader {
	return &CachedReader{Reader: r, cache: NewCache(r.Get)}
}

// Get implements Reader through the cache.
func (c *CachedReader) Get(id string) (User, error) { return c.cache.Get(id) }
