package provider

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// elevenObjects is a configuration of eleven objects, the size at which a
// wrong setting used to print eleven errors.
const elevenObjects = `
resource "custody_policy" "p" {
  count  = 10
  name   = "p${count.index}"
  effect = "EFFECT_DENY"
}

resource "custody_private_key_tag" "t" {
  name = "t"
}
`

// firstErrorPlan plans elevenObjects with env and returns the output as
// one line and how many errors it has.
func firstErrorPlan(t *testing.T, c *tfCLI, env ...string) (string, int) {
	t.Helper()
	out, code := c.run(env, "plan")
	flat := strings.Join(strings.Fields(out), " ")
	if code != 1 {
		t.Fatalf("the plan should fail (exit %d):\n%s", code, out)
	}
	return flat, strings.Count(out, "Error: ")
}

// The first failure names its cause, once, on the provider's
// configuration, whatever the number of objects: a base URL nothing
// listens on, one that is not the service (a web server answering an HTML
// page, said by its title, not retried), https:// to a plain-http port
// (not retried), and a key the organization does not know.
func TestAccFirstErrorNamesTheCause(t *testing.T) {
	e := newAccEmulator(t)
	c := newTFCLI(t, e)
	c.write(elevenObjects)

	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	out, n := firstErrorPlan(t, c, "CUSTODY_BASE_URL="+closed.URL, "CUSTODY_MAX_RETRIES=1")
	if n != 1 || !strings.Contains(out, "Error: Provider cannot reach the custody service") ||
		!strings.Contains(out, "The connection failed: Post") || !strings.Contains(out, "connection refused") {
		t.Errorf("an unreachable base_url should be one error that says why (%d errors):\n%s", n, out)
	}

	// The page server counts the requests by path. The check (whoami)
	// is asked once: its answer is the error. The command's other first
	// reads (prefetch) go out beside it, each at most once, never retried;
	// one may not be sent at all, when the process ends on the error
	// before it is (on a busy machine), and that is no retry.
	var mu sync.Mutex
	asked := map[string]int{}
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked[r.URL.Path]++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotImplemented)
		_, _ = fmt.Fprint(w, "<!DOCTYPE HTML>\n<html><head><title>501 Not Implemented</title></head><body><h1>Not Implemented</h1>"+
			strings.Repeat("<p>filler</p>", 200)+"</body></html>")
	}))
	t.Cleanup(page.Close)
	out, n = firstErrorPlan(t, c, "CUSTODY_BASE_URL="+page.URL)
	if n != 1 || !strings.Contains(out, "Error: Invalid provider base_url") || !strings.Contains(out, `It answered: a page titled "501 Not Implemented"`) ||
		strings.Contains(out, "filler") || strings.Contains(out, "Try again later") {
		t.Errorf("a web server that is not the service should be one error, its page summarised (%d errors):\n%s", n, out)
	}
	first := map[string]bool{}
	for _, q := range []client.Query{client.QueryWhoami, client.QueryListPolicies, client.QueryGetOrganizationConfigs} {
		first["/public/v1/query/"+string(q)] = true
	}
	whoami := "/public/v1/query/" + string(client.QueryWhoami)
	mu.Lock()
	if asked[whoami] == 0 {
		t.Errorf("the credentials check (%s) was not asked", whoami)
	}
	for path, k := range asked {
		if !first[path] || k != 1 {
			t.Errorf("%s asked %d times: each of the command's first reads (%d) is asked once at most, nothing else", path, k, firstReads)
		}
	}
	mu.Unlock()

	plain := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(plain.Close)
	out, n = firstErrorPlan(t, c, "CUSTODY_BASE_URL="+strings.Replace(plain.URL, "http://", "https://", 1))
	if n != 1 || !strings.Contains(out, "Error: Provider cannot connect securely to the custody service") ||
		!strings.Contains(out, "server gave HTTP response to HTTPS client") || strings.Contains(out, "cannot be reached") {
		t.Errorf("https:// to a plain-http port should be one \"cannot connect securely\" error, not retried (%d errors):\n%s", n, out)
	}

	stranger := strangerKey(t)
	out, n = firstErrorPlan(t, c, "CUSTODY_API_PUBLIC_KEY="+stranger.PublicKeyHex(), "CUSTODY_API_PRIVATE_KEY="+stranger.PrivateKeyHex())
	if n != 1 || !strings.Contains(out, "Error: Invalid provider credentials") || !strings.Contains(out, "belongs to no user of organization") {
		t.Errorf("an unknown key should be one error with the service's reason (%d errors):\n%s", n, out)
	}
}

// An allowlist that leaves out Terraform's address refuses the next
// command: one error headed as the allowlist's refusal, not as bad
// credentials, with the service's words once and the recovery steps.
func TestAccAllowlistRefusalIsNamed(t *testing.T) {
	e := newAccEmulator(t)
	c := newTFCLI(t, e)
	c.write(`
resource "custody_ip_allowlist" "org" {
  enabled = true
  rules   = [{ cidr = "10.0.0.0/8", label = "office" }]
}
`)
	applied := c.mustRun(0, "apply", "-auto-approve")
	if !strings.Contains(applied, "Warning:") {
		t.Errorf("the apply that locks Terraform out should warn:\n%s", applied)
	}
	out, n := firstErrorPlan(t, c)
	if n != 1 || !strings.Contains(out, "Error: Refused by the IP allowlist") || strings.Contains(out, "Invalid provider credentials") ||
		strings.Count(out, "is not in the IP allowlist") != 2 || !strings.Contains(out, "To recover, remove or fix that allowlist with another API key") {
		t.Errorf("the next plan should fail once, named as the allowlist's refusal, with the recovery steps (%d errors):\n%s", n, out)
	}
}
