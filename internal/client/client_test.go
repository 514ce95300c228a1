package client

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestNewValidatesBaseURL(t *testing.T) {
	tests := []struct {
		url, wantErr string
	}{
		{"https://api.example.com", ""},
		{"https://api.example.com/", ""},
		{"http://127.0.0.1:8443", ""},
		{"http://127.9.9.9:1", ""},
		{"http://localhost:8443", ""},
		{"http://[::1]:8443", ""},
		{"http://api.example.com", "plain http is allowed only for a loopback host"},
		{"http://10.0.0.5:8443", "plain http is allowed only for a loopback host"},
		{"ftp://api.example.com", "scheme must be https"},
		{"", "base URL is required"},
		{"https://", "has no host"},
		{"https://api.example.com/?x=1", "must not have a query"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			_, err := New(Config{BaseURL: tt.url, OrganizationID: "org", APIPublicKey: testKey.PublicKeyHex(), APIPrivateKey: testKey.PrivateKeyHex()})
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestNewRequiresOrganizationAndKeys(t *testing.T) {
	base := Config{BaseURL: "https://api.example.com", OrganizationID: "org", APIPublicKey: testKey.PublicKeyHex(), APIPrivateKey: testKey.PrivateKeyHex()}
	noOrg := base
	noOrg.OrganizationID = " "
	if _, err := New(noOrg); err == nil || !strings.Contains(err.Error(), "organization id is required") {
		t.Errorf("missing organization: %v", err)
	}
	noKey := base
	noKey.APIPrivateKey = ""
	if _, err := New(noKey); err == nil || !strings.Contains(err.Error(), "private key is required") {
		t.Errorf("missing private key: %v", err)
	}
}

func TestWithOrganizationChangesTheBodyOnly(t *testing.T) {
	f := &fakeService{answer: func(_ int, _ recorded, w http.ResponseWriter) {
		writeJSON(w, 200, `{"organizationId":"sub-1","organizationName":"n","userId":"u","username":"n"}`)
	}}
	c, _ := newTestClient(t, f)
	if _, err := c.WithOrganization("sub-1").Whoami(t.Context(), WhoamiRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Whoami(t.Context(), WhoamiRequest{}); err != nil {
		t.Fatal(err)
	}
	reqs := f.all()
	if got := string(reqs[0].Body); got != `{"organizationId":"sub-1"}` {
		t.Errorf("sub-organization body = %s", got)
	}
	if got := string(reqs[1].Body); got != `{"organizationId":"org-1"}` {
		t.Errorf("original client body = %s (WithOrganization must not change it)", got)
	}
}

func TestRetriesSaySoExplicitly(t *testing.T) {
	down := func(_ int, _ recorded, w http.ResponseWriter) {
		writeJSON(w, 503, `{"code":14,"message":"down","details":[]}`)
	}
	tests := []struct {
		name    string
		retries Retries
		want    int // requests sent
	}{
		{"zero value is the default", Retries{}, DefaultMaxRetries + 1},
		{"RetryUpTo(2)", RetryUpTo(2), 3},
		{"RetryUpTo(0) sends once", RetryUpTo(0), 1},
		{"NoRetries sends once", NoRetries, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeService{answer: down}
			c, _ := newTestClient(t, f, func(cfg *Config) { cfg.Retries = tt.retries })
			if _, err := c.Whoami(t.Context(), WhoamiRequest{}); err == nil {
				t.Fatal("want an error")
			}
			if n := len(f.all()); n != tt.want {
				t.Errorf("%d requests, want %d", n, tt.want)
			}
		})
	}
	t.Run("negative is refused", func(t *testing.T) {
		_, err := New(Config{BaseURL: "https://api.example.com", OrganizationID: "org",
			APIPublicKey: testKey.PublicKeyHex(), APIPrivateKey: testKey.PrivateKeyHex(), Retries: RetryUpTo(-1)})
		if err == nil || !strings.Contains(err.Error(), "must not be negative") {
			t.Fatalf("error = %v", err)
		}
	})
}

func TestNewErrorsNameTheirField(t *testing.T) {
	other, err := GenerateAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	base := Config{BaseURL: "https://api.example.com", OrganizationID: "org", APIPublicKey: testKey.PublicKeyHex(), APIPrivateKey: testKey.PrivateKeyHex()}
	tests := []struct {
		name   string
		mutate func(*Config)
		want   ConfigField
	}{
		{"no base URL", func(c *Config) { c.BaseURL = "" }, FieldBaseURL},
		{"remote http", func(c *Config) { c.BaseURL = "http://api.example.com" }, FieldBaseURL},
		{"unparsable URL", func(c *Config) { c.BaseURL = "https://[::1" }, FieldBaseURL},
		{"no organization", func(c *Config) { c.OrganizationID = " " }, FieldOrganizationID},
		{"no public key", func(c *Config) { c.APIPublicKey = "" }, FieldAPIPublicKey},
		{"malformed public key", func(c *Config) { c.APIPublicKey = "04abcd" }, FieldAPIPublicKey},
		{"no private key", func(c *Config) { c.APIPrivateKey = "" }, FieldAPIPrivateKey},
		{"malformed private key", func(c *Config) { c.APIPrivateKey = "zz" }, FieldAPIPrivateKey},
		{"mismatched pair", func(c *Config) { c.APIPrivateKey = other.PrivateKeyHex() }, FieldAPIPrivateKey},
		{"negative retries", func(c *Config) { c.Retries = RetryUpTo(-1) }, FieldRetries},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := base
			tt.mutate(&cfg)
			_, err := New(cfg)
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Field != tt.want {
				t.Fatalf("New: %v (%T), want a *ConfigError about %s", err, err, tt.want)
			}
			if ce.Error() == "" || strings.Contains(ce.Error(), testKey.PrivateKeyHex()) || strings.Contains(ce.Error(), other.PrivateKeyHex()) {
				t.Errorf("message %q is empty or reveals a private key", ce.Error())
			}
		})
	}
}

// A base URL written without its scheme is refused as such, naming the
// value and the URL to write instead, not as a URL with no host or Go's
// "first path segment in URL cannot contain colon".
func TestCheckBaseURLWithoutScheme(t *testing.T) {
	for _, raw := range []string{"api.example.com", "api.example.com:443", "127.0.0.1:8443"} {
		t.Run(raw, func(t *testing.T) {
			err := CheckBaseURL(raw)
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Field != FieldBaseURL {
				t.Fatalf("CheckBaseURL(%q) = %v (%T), want a *ConfigError about %s", raw, err, err, FieldBaseURL)
			}
			want := fmt.Sprintf("base_url %q has no scheme: write it as %q (http:// only for an emulator on a loopback address)", raw, "https://"+raw)
			if err.Error() != want {
				t.Fatalf("error = %q\nwant    %q", err, want)
			}
		})
	}
	for _, raw := range []string{"https://api.example.com", "https://api.example.com:443/", "http://127.0.0.1:8443", "http://localhost:8080", "https://[::1]:8443"} {
		if err := CheckBaseURL(raw); err != nil {
			t.Errorf("CheckBaseURL(%q) = %v, want nil", raw, err)
		}
	} // A scheme without its slashes is not reported as missing.
	if err := CheckBaseURL("https:api.example.com"); err == nil || strings.Contains(err.Error(), "no scheme") {
		t.Errorf("CheckBaseURL(https:api.example.com) = %v, want an error that is not about the scheme", err)
	}
}
