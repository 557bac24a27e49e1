package keyring

import "sync"

// Memory is a keyring in memory, for tests of the stores built on a Keyring; Down, when set,
// is what Available and every operation answer.
type Memory struct {
	Down error

	mu      sync.Mutex
	entries map[string]string
}

func (k *Memory) Available() error { return k.Down }

func (k *Memory) Get(service, account string) (string, error) {
	if k.Down != nil {
		return "", k.Down
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	v, ok := k.entries[service+"\x00"+account]
	if !ok {
		return "", ErrNotFound
	}
	return v, nil
}

func (k *Memory) Set(service, account, secret string) error {
	if k.Down != nil {
		return k.Down
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.entries == nil {
		k.entries = map[string]string{}
	}
	k.entries[service+"\x00"+account] = secret
	return nil
}

func (k *Memory) Delete(service, account string) error {
	if k.Down != nil {
		return k.Down
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.entries[service+"\x00"+account]; !ok {
		return ErrNotFound
	}
	delete(k.entries, service+"\x00"+account)
	return nil
}

// Len is the number of entries.
func (k *Memory) Len() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.entries)
}
