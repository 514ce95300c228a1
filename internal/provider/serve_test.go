package provider

import (
	"context"
	"errors"
	"runtime"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

type ctxKey struct{}

// recordingServer keeps the context of its last ReadResource.
type recordingServer struct {
	tfprotov6.ProviderServer
	seen   context.Context
	during func(ctx context.Context)
}

func (r *recordingServer) ReadResource(ctx context.Context, _ *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	r.seen = ctx
	if r.during != nil {
		r.during(ctx)
	}
	return &tfprotov6.ReadResourceResponse{}, nil
}

func TestRequestContextIsTheRequestsUntilItReturns(t *testing.T) {
	parent, cancel := context.WithCancel(context.WithValue(t.Context(), ctxKey{}, "request value"))
	inner := &recordingServer{during: func(ctx context.Context) {
		if ctx.Value(ctxKey{}) != "request value" || ctx.Err() != nil {
			t.Errorf("during the request: value %v, err %v; want the request's", ctx.Value(ctxKey{}), ctx.Err())
		}
		// An interrupt (Terraform's StopProvider cancels the request's
		// context) reaches the provider's code.
		cancel()
		if !errors.Is(ctx.Err(), context.Canceled) {
			t.Errorf("after the request's cancel: err %v, want canceled", ctx.Err())
		}
		select {
		case <-ctx.Done():
		default:
			t.Error("Done is not closed after the request's cancel")
		}
	}}
	if _, err := releaseRequestContexts(inner).ReadResource(parent, &tfprotov6.ReadResourceRequest{}); err != nil {
		t.Fatal(err)
	}
	if inner.seen.Value(ctxKey{}) != nil || !errors.Is(inner.seen.Err(), context.Canceled) {
		t.Fatalf("after the request: value %v, err %v; want none and canceled", inner.seen.Value(ctxKey{}), inner.seen.Err())
	}
}

// TestFrameworkRetainsNoRequestContexts sends 400 requests, each with 64 KiB
// hanging off its context, through the framework's own server: without the
// wrapper the framework keeps all of them (25 MiB); with it, none.
func TestFrameworkRetainsNoRequestContexts(t *testing.T) {
	live := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	const requests, payload = 400, 64 << 10
	for _, tc := range []struct {
		name    string
		server  tfprotov6.ProviderServer
		leaking bool
	}{
		{"framework alone", providerserver.NewProtocol6(New("test")())(), true},
		{"released", NewProtocol6Server("test"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := live()
			for range requests {
				ctx := context.WithValue(t.Context(), ctxKey{}, make([]byte, payload))
				// An unknown type name is answered with an error
				// diagnostic; the context is registered all the same.
				if _, err := tc.server.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: "custody_nothing"}); err != nil {
					t.Fatal(err)
				}
			}
			grown := int64(live()) - int64(before)
			runtime.KeepAlive(tc.server)
			const all = requests * payload
			if tc.leaking && grown < all/2 {
				t.Fatalf("the framework alone kept %d bytes of %d: it no longer leaks, and the wrapper can go", grown, all)
			}
			if !tc.leaking && grown > all/10 {
				t.Fatalf("%d bytes kept after %d requests, want almost none of their %d", grown, requests, all)
			}
			t.Logf("heap grew by %d KiB over %d requests", grown>>10, requests)
		})
	}
}

func TestSilenceUnreadLogs(t *testing.T) {
	for name, tc := range map[string]struct {
		environ []string
		silent  bool
	}{
		"no TF_LOG":                  {environ: []string{"HOME=/root", "PATH=/bin"}, silent: true},
		"only TF_LOG_PATH":           {environ: []string{"TF_LOG_PATH=/tmp/tf.log"}, silent: true},
		"only core logs":             {environ: []string{"TF_LOG_CORE=trace"}, silent: true},
		"TF_LOG set but empty":       {environ: []string{"TF_LOG="}, silent: true},
		"TF_LOG":                     {environ: []string{"TF_LOG=debug"}},
		"TF_LOG_PROVIDER":            {environ: []string{"TF_LOG_PROVIDER=trace"}},
		"this provider's own level":  {environ: []string{"TF_LOG_PROVIDER_CUSTODY=debug"}},
		"a framework subsystem only": {environ: []string{"TF_LOG_SDK_FRAMEWORK=trace"}},
	} {
		t.Run(name, func(t *testing.T) {
			set := map[string]string{}
			silenceUnreadLogs(tc.environ, func(k, v string) error { set[k] = v; return nil })
			if !tc.silent {
				if len(set) != 0 {
					t.Fatalf("logs were asked for, but levels were set: %v", set)
				}
				return
			}
			for _, k := range sdkLogLevels {
				if set[k] != "off" {
					t.Errorf("%s = %q, want off", k, set[k])
				}
			}
		})
	}
}
