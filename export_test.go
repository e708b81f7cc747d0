package idgen

// ResetRegistry forgets every registered type, so each test starts from an empty registry.
func ResetRegistry() {
	registry.mu.Lock()
	registry.types = nil
	registry.mu.Unlock()
}
