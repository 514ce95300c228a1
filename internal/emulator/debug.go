package emulator

import (
	"maps"
	"net/http"
	"sync"
)

// requestCounts counts requests by kind and operation, for benchmarks
// that report requests per resource.
type requestCounts struct {
	mu sync.Mutex
	n  map[string]int
}

func newRequestCounts() *requestCounts { return &requestCounts{n: map[string]int{}} }

func (c *requestCounts) add(kind routeKind, op string) {
	if kind == routeDebug {
		return
	}
	c.mu.Lock()
	c.n[string(kind)+"/"+op]++
	c.mu.Unlock()
}

// RequestCounts returns a copy of the counts, keyed "submit/<op>",
// "query/<op>", "jwks/jwks" or "unknown/".
func (s *Server) RequestCounts() map[string]int {
	s.counts.mu.Lock()
	defer s.counts.mu.Unlock()
	return maps.Clone(s.counts.n)
}

// serveDebug answers GET /debug/requests (the counts) and
// POST /debug/requests/reset. They need no stamp: the emulator is a local
// test service, and they reveal nothing of its state.
func (s *Server) serveDebug(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/debug/requests" && r.Method == http.MethodGet:
		jsonResponse(http.StatusOK, s.RequestCounts()).write(w)
	case r.URL.Path == "/debug/requests/reset" && r.Method == http.MethodPost:
		s.counts.mu.Lock()
		s.counts.n = map[string]int{}
		s.counts.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	default:
		errorResponse(errNotFound("unknown debug path %s", r.URL.Path)).write(w)
	}
}
