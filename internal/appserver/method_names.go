package appserver

import "sort"

// Methods lists the client request methods the server answers, initialize included (the
// handshake answers it outside the method table), sorted. The schema generator narrows the
// protocol's ClientRequest union to these.
func (s *Server) Methods() []string {
	s.mu.RLock()
	names := make([]string, 0, len(s.methods)+1)
	for m := range s.methods {
		names = append(names, m)
	}
	s.mu.RUnlock()
	names = append(names, "initialize")
	sort.Strings(names)
	return names
}
