package emulator

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/testclock"
)

// membership reads both sides of tag membership: each tag's key list (from
// state, which no query shows) and each key's privateKeyTags (from
// list_private_keys). It fails the test when the two disagree.
func membership(t *testing.T, e *testEmulator) map[string][]string {
	t.Helper()
	e.srv.mu.Lock()
	byTag := map[string][]string{}
	for id, tag := range e.srv.st.Tags {
		byTag[id] = slices.Sorted(slices.Values(tag.PrivateKeyIDs))
	}
	e.srv.mu.Unlock()
	fromKeys := map[string][]string{}
	for id := range byTag {
		fromKeys[id] = []string{}
	}
	for _, k := range listKeys(t, e) {
		for _, tagID := range k.PrivateKeyTags {
			fromKeys[tagID] = append(fromKeys[tagID], k.PrivateKeyID)
		}
	}
	for id := range fromKeys {
		slices.Sort(fromKeys[id])
		if !slices.Equal(fromKeys[id], byTag[id]) {
			t.Fatalf("tag %s: the tag lists keys %v, the keys say %v", id, byTag[id], fromKeys[id])
		}
	}
	return byTag
}

func sorted(ids ...string) []string { return slices.Sorted(slices.Values(ids)) }

func TestPrivateKeyTagLifecycle(t *testing.T) {
	clock := testclock.Ticking(time.Now(), time.Millisecond) // so that updatedAt visibly moves
	e := newTestEmulator(t, func(o *Options) { o.Now = clock.Now })
	ctx := t.Context()
	ks := createKeys(t, e, keyParams("a", curveP256), keyParams("b", curveP256), keyParams("c", curveP256))
	a, b, c := ks[0].PrivateKeyID, ks[1].PrivateKeyID, ks[2].PrivateKeyID

	created, err := e.client.CreatePrivateKeyTag(ctx, client.CreatePrivateKeyTagParams{PrivateKeyTagName: "hot", PrivateKeyIDs: []string{a, b}})
	if err != nil {
		t.Fatal(err)
	}
	hot := created.Result.PrivateKeyTagID
	if !slices.Equal(created.Result.PrivateKeyIDs, []string{a, b}) {
		t.Fatalf("create result %+v", created.Result)
	}
	empty, err := e.client.CreatePrivateKeyTag(ctx, client.CreatePrivateKeyTagParams{PrivateKeyTagName: "empty", PrivateKeyIDs: nil})
	if err != nil || len(empty.Result.PrivateKeyIDs) != 0 {
		t.Fatalf("empty tag: %+v, %v", empty, err)
	}
	// A key created with a tag joins it.
	p := keyParams("d", curveSecp256k1)
	p.PrivateKeyTags = []string{hot}
	d := createKeys(t, e, p)[0].PrivateKeyID
	if got := membership(t, e)[hot]; !slices.Equal(got, sorted(a, b, d)) {
		t.Fatalf("hot = %v after creating d", got)
	}

	before := tagByID(t, e, hot)
	upd, err := e.client.UpdatePrivateKeyTag(ctx, client.UpdatePrivateKeyTagParams{PrivateKeyTagID: hot, NewPrivateKeyTagName: "warm",
		AddPrivateKeyIDs: []string{c}, RemovePrivateKeyIDs: []string{a}})
	if err != nil || upd.Result.PrivateKeyTagID != hot {
		t.Fatalf("update: %+v, %v", upd, err)
	}
	after := tagByID(t, e, hot)
	if after.TagName != "warm" || after.TagType != "TAG_TYPE_PRIVATE_KEY" || !laterThan(after.UpdatedAt, before.UpdatedAt) || after.CreatedAt != before.CreatedAt {
		t.Fatalf("after update %+v, before %+v", after, before)
	}
	if got := membership(t, e)[hot]; !slices.Equal(got, sorted(b, c, d)) {
		t.Fatalf("warm = %v after update", got)
	}
	// Idempotent: adding a member and removing a non-member change nothing.
	if _, err := e.client.UpdatePrivateKeyTag(ctx, client.UpdatePrivateKeyTagParams{PrivateKeyTagID: hot, AddPrivateKeyIDs: []string{b}, RemovePrivateKeyIDs: []string{a}}); err != nil {
		t.Fatal(err)
	}
	if got := membership(t, e)[hot]; !slices.Equal(got, sorted(b, c, d)) || tagByID(t, e, hot).TagName != "warm" {
		t.Fatalf("warm = %v after an idempotent update", got)
	}

	del, err := e.client.DeletePrivateKeyTags(ctx, client.DeletePrivateKeyTagsParams{PrivateKeyTagIDs: []string{hot, empty.Result.PrivateKeyTagID}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sorted(del.Result.PrivateKeyIDs...), sorted(b, c, d)) || len(del.Result.PrivateKeyTagIDs) != 2 {
		t.Fatalf("delete result %+v", del.Result)
	}
	if m := membership(t, e); len(m) != 0 {
		t.Fatalf("tags left: %v", m)
	}
	for _, k := range listKeys(t, e) {
		if len(k.PrivateKeyTags) != 0 {
			t.Fatalf("key %s still carries %v", k.PrivateKeyName, k.PrivateKeyTags)
		}
	}
}

func tagByID(t *testing.T, e *testEmulator, id string) client.Tag {
	t.Helper()
	got, err := e.client.ListPrivateKeyTags(t.Context(), client.ListPrivateKeyTagsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tag := range got.PrivateKeyTags {
		if tag.TagID == id {
			return tag
		}
	}
	t.Fatalf("tag %s not listed", id)
	return client.Tag{}
}

func laterThan(a, b client.Timestamp) bool {
	ta, _ := a.Time()
	tb, _ := b.Time()
	return ta.After(tb)
}

func TestListPrivateKeyTagsOnlyPrivateKeyTagsInCreationOrder(t *testing.T) {
	clock := testclock.Ticking(time.Now(), time.Millisecond)
	e := newTestEmulator(t, func(o *Options) { o.Now = clock.Now })
	var want []string
	for _, name := range []string{"t1", "t2", "t3", "t4", "t5"} {
		r, err := e.client.CreatePrivateKeyTag(t.Context(), client.CreatePrivateKeyTagParams{PrivateKeyTagName: name})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, r.Result.PrivateKeyTagID)
	}
	e.srv.mu.Lock() // a user tag shares the map and must not be listed
	e.srv.st.Tags["user-tag"] = &tagRecord{Tag: client.Tag{TagID: "user-tag", TagName: "t1", TagType: "TAG_TYPE_USER"}}
	e.srv.mu.Unlock()
	got, err := e.client.ListPrivateKeyTags(t.Context(), client.ListPrivateKeyTagsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if ids := idsOf(got.PrivateKeyTags, func(tag client.Tag) string { return tag.TagID }); !slices.Equal(ids, want) {
		t.Fatalf("listed %v, want creation order %v", ids, want)
	}
	_, err = e.client.UpdatePrivateKeyTag(t.Context(), client.UpdatePrivateKeyTagParams{PrivateKeyTagID: "user-tag"})
	wantFailedActivity(t, err, client.CodeNotFound, "private key tag user-tag not found")
}

func TestPrivateKeyTagFailures(t *testing.T) {
	e := newTestEmulator(t)
	ctx := t.Context()
	k := createKeys(t, e, keyParams("a", curveP256))[0].PrivateKeyID
	hot, err := e.client.CreatePrivateKeyTag(ctx, client.CreatePrivateKeyTagParams{PrivateKeyTagName: "hot", PrivateKeyIDs: []string{k}})
	if err != nil {
		t.Fatal(err)
	}
	cold, err := e.client.CreatePrivateKeyTag(ctx, client.CreatePrivateKeyTagParams{PrivateKeyTagName: "cold"})
	if err != nil {
		t.Fatal(err)
	}
	hotID, coldID := hot.Result.PrivateKeyTagID, cold.Result.PrivateKeyTagID

	_, err = e.client.CreatePrivateKeyTag(ctx, client.CreatePrivateKeyTagParams{PrivateKeyTagName: "hot"})
	wantFailedActivity(t, err, 6, `a private key tag named "hot" already exists`)
	_, err = e.client.CreatePrivateKeyTag(ctx, client.CreatePrivateKeyTagParams{PrivateKeyTagName: "new", PrivateKeyIDs: []string{k, "pk-missing"}})
	wantFailedActivity(t, err, client.CodeNotFound, "private key pk-missing not found")
	_, err = e.client.UpdatePrivateKeyTag(ctx, client.UpdatePrivateKeyTagParams{PrivateKeyTagID: "tag-missing"})
	wantFailedActivity(t, err, client.CodeNotFound, "private key tag tag-missing not found")
	_, err = e.client.UpdatePrivateKeyTag(ctx, client.UpdatePrivateKeyTagParams{PrivateKeyTagID: coldID, AddPrivateKeyIDs: []string{k}, RemovePrivateKeyIDs: []string{"pk-gone"}})
	wantFailedActivity(t, err, client.CodeNotFound, "private key pk-gone not found")
	_, err = e.client.UpdatePrivateKeyTag(ctx, client.UpdatePrivateKeyTagParams{PrivateKeyTagID: coldID, NewPrivateKeyTagName: "hot", AddPrivateKeyIDs: []string{k}})
	wantFailedActivity(t, err, 6, `"hot" already exists`)
	if m := membership(t, e); len(m[coldID]) != 0 || tagByID(t, e, coldID).TagName != "cold" {
		t.Fatalf("a failed update changed the tag: %v", m)
	}
	_, err = e.client.DeletePrivateKeyTags(ctx, client.DeletePrivateKeyTagsParams{PrivateKeyTagIDs: []string{hotID, "tag-missing"}})
	wantFailedActivity(t, err, client.CodeNotFound, "private key tag tag-missing not found")
	if m := membership(t, e); !slices.Equal(m[hotID], []string{k}) {
		t.Fatalf("a failed delete removed tags: %v", m)
	}
}

func TestPrivateKeyTagValidation(t *testing.T) {
	e := newTestEmulator(t)
	for _, tt := range []struct{ op, typ, params, want string }{
		{"create_private_key_tag", "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG", `{"privateKeyIds":[]}`, "missing required field parameters.privateKeyTagName"},
		{"create_private_key_tag", "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG", `{"privateKeyTagName":"x"}`, "missing required field parameters.privateKeyIds"},
		{"create_private_key_tag", "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG", `{"privateKeyTagName":"","privateKeyIds":[]}`, "parameters.privateKeyTagName must not be empty"},
		{"create_private_key_tag", "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG", `{"privateKeyTagName":"` + strings.Repeat("x", 257) + `","privateKeyIds":[]}`, "the limit is 256"},
		{"create_private_key_tag", "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG", `{"privateKeyTagName":"x","privateKeyIds":["a","b","a"]}`, "parameters.privateKeyIds[2]"},
		{"create_private_key_tag", "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG", `{"privateKeyTagName":"x","privateKeyIds":[],"tagType":"x"}`, `unknown field "tagType"`},
		{"create_private_key_tag", "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG", `{"privateKeyTagName":"x","privateKeyIds":"a"}`, "wrong JSON type"},
		{"update_private_key_tag", "ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG", `{"privateKeyTagId":"t","addPrivateKeyIds":[]}`, "missing required field parameters.removePrivateKeyIds"},
		{"update_private_key_tag", "ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG", `{"privateKeyTagId":"t","addPrivateKeyIds":["a"],"removePrivateKeyIds":["a"]}`, "both added and removed"},
		{"update_private_key_tag", "ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG", `{"privateKeyTagId":"t","newPrivateKeyTagName":" ","addPrivateKeyIds":[],"removePrivateKeyIds":[]}`, "parameters.newPrivateKeyTagName must not be empty"},
		{"delete_private_key_tags", "ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS", `{}`, "missing required field parameters.privateKeyTagIds"},
		{"delete_private_key_tags", "ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS", `{"privateKeyTagIds":["t","t"]}`, "parameters.privateKeyTagIds[1]"},
	} {
		t.Run(tt.op+" "+tt.want, func(t *testing.T) {
			wantError(t, e.post(t, "/public/v1/submit/"+tt.op, submitBody(tt.typ, tt.params), e.key), http.StatusBadRequest, tt.want)
		})
	}
	wantError(t, e.post(t, "/public/v1/query/list_private_key_tags", []byte(`{"organizationId":"org-test","x":1}`), e.key), http.StatusBadRequest, `unknown field "x"`)
	wantError(t, e.post(t, "/public/v1/query/list_private_keys", []byte(`{}`), e.key), http.StatusBadRequest, "organizationId")
}
