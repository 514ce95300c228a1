package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// history is a fake organization's activities, newest first, one an hour
// back from now, served by list_activities with its cursor.
func history(n int, now time.Time) *fakeService {
	acts := make([]Activity, n)
	for i := range acts {
		acts[i] = Activity{ID: fmt.Sprint("act-", i), Type: OpSignTransaction.Type, CreatedAt: NewTimestamp(now.Add(-time.Duration(i) * time.Hour))}
	}
	return &fakeService{answer: func(_ int, r recorded, w http.ResponseWriter) {
		var req ListActivitiesRequest
		_ = json.Unmarshal(r.Body, &req)
		start := 0
		if p := req.PaginationOptions; p != nil && p.After != "" {
			_, _ = fmt.Sscanf(p.After, "act-%d", &start)
			start++
		}
		end := min(start+100, n)
		if p := req.PaginationOptions; p == nil || p.Limit != "100" {
			end = min(start+10, n)
		}
		body, _ := json.Marshal(ListActivitiesResponse{Activities: acts[start:end]})
		writeJSON(w, http.StatusOK, string(body))
	}}
}

// RecentActivities stops at the cutoff, at max, or at the list's end,
// reads 100 a page with the last activity as the cursor, and hands each
// page on before it asks for the next.
func TestRecentActivities(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		name        string
		n, max      int
		since       time.Duration // back from now
		want, pages int
		reason      string
	}{
		{"past the cutoff", 1000, 20000, 250 * time.Hour, 251, 3, EndCutoff},
		{"the cutoff at a page's end", 1000, 20000, 199*time.Hour + time.Minute, 200, 3, EndCutoff},
		{"at max", 1000, 150, 900 * time.Hour, 150, 2, EndMax},
		{"the list's end", 230, 20000, 900 * time.Hour, 230, 3, EndList},
		{"an empty organization", 0, 20000, time.Hour, 0, 1, EndList},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := history(tc.n, now)
			c, _ := newTestClient(t, f)
			got := 0
			end, err := c.RecentActivities(context.Background(), now.Add(-tc.since), tc.max, func(page []Activity) error {
				if len(f.all()) != got/100+1 && got%100 == 0 {
					t.Errorf("page handed on after %d requests, with %d activities before it", len(f.all()), got)
				}
				for _, a := range page {
					if a.ID != fmt.Sprint("act-", got) {
						t.Fatalf("activity %s at %d", a.ID, got)
					}
					got++
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want || end.Activities != tc.want || end.Pages != tc.pages || end.Reason != tc.reason {
				t.Fatalf("handed on %d, end %+v; want %d activities, %d pages, %q", got, end, tc.want, tc.pages, tc.reason)
			}
			for i, r := range f.all() {
				var req ListActivitiesRequest
				_ = json.Unmarshal(r.Body, &req)
				if want := map[bool]string{true: "", false: fmt.Sprint("act-", i*100-1)}[i == 0]; req.PaginationOptions.After != want {
					t.Errorf("page %d's cursor %q, want %q", i+1, req.PaginationOptions.After, want)
				}
			}
		})
	}
}

// A list that fails names the page, and what was handed on stays counted.
func TestRecentActivitiesFails(t *testing.T) {
	now := time.Now()
	f := history(500, now)
	ok := f.answer
	f.answer = func(n int, r recorded, w http.ResponseWriter) {
		if n >= 3 {
			writeJSON(w, http.StatusForbidden, `{"code":7,"message":"denied"}`)
			return
		}
		ok(n, r, w)
	}
	c, _ := newTestClient(t, f)
	end, err := c.RecentActivities(context.Background(), now.Add(-1000*time.Hour), 20000, func([]Activity) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "(page 3)") || !strings.Contains(err.Error(), "denied") {
		t.Fatalf("error %v", err)
	}
	if end.Activities != 200 || end.Pages != 2 {
		t.Fatalf("end %+v", end)
	}
}
