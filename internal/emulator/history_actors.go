package emulator

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// The actors of a generated history: users with API keys and user tags,
// and private keys with private key tags. They are put into the state
// directly, as fixtures put users, since the API creates no users. Their
// keys are derived from their names (historySecret): test keys, good for
// nothing but this emulator, the same in every state, so that a history
// acts again as the actors an earlier one made.

// tagTypeUser marks user tags in state.Tags, beside private key tags.
const tagTypeUser = "TAG_TYPE_USER"

// historyUserSpec is one user a history acts as.
type historyUserSpec struct {
	name, email string
	tags        []string // user tag names
	bot         bool
}

// The history's users, by their index in plans (see historyActor*).
var historyUserSpecs = []historyUserSpec{
	{name: "payouts-bot", tags: []string{"bot"}, bot: true},
	{name: "treasury-bot", tags: []string{"bot"}, bot: true},
	{name: "alice", email: "alice@example.com", tags: []string{"officer", "finance"}},
	{name: "bob", email: "bob@example.com", tags: []string{"officer"}},
	{name: "carol", email: "carol@example.com", tags: []string{"finance"}},
}

// Indexes of historyUserSpecs, and of the first root user after them.
const (
	historyPayoutsBot = iota
	historyTreasuryBot
	historyAlice
	historyBob
	historyCarol
	historyRoot
)

// historyPeople are the users who are not bots: they request, approve and
// reject.
var historyPeople = []int{historyAlice, historyBob, historyCarol}

// The history's private keys (secp256k1, with an Ethereum address), by
// their index in plans.
var historyKeySpecs = []struct {
	name string
	tags []string // private key tag names
}{
	{"hot-wallet-1", []string{"hot"}},
	{"hot-wallet-2", []string{"hot"}},
	{"treasury-vault", []string{"treasury"}},
}

const (
	historyHot1 = iota
	historyHot2
	historyTreasury
)

// HistoryActors are the users and private keys a generated history acts
// with, as the state holds them.
type HistoryActors struct {
	Users       []HistoryUser
	PrivateKeys []HistoryPrivateKey
	// UserTags and PrivateKeyTags are tag ids by tag name.
	UserTags, PrivateKeyTags map[string]string
}

// HistoryUser is a non-root user a history acts as.
type HistoryUser struct {
	UserID, UserName string
	UserTags         []string // tag ids
	Bot              bool
	APIKey           *client.APIKey
}

// HistoryPrivateKey is a private key a history signs with.
type HistoryPrivateKey struct {
	PrivateKeyID, PrivateKeyName string
	Address                      string // Ethereum, EIP-55
	PrivateKeyTags               []string
}

// EnsureHistoryActors puts the actors of GenerateHistory into the state,
// each only if absent (a user or private key by name, a tag by name and
// type), and returns them; the new ones are dated just before the window
// of opts. Call it to write policies that name the actors' tags before
// generating a history.
func (s *Server) EnsureHistoryActors(opts HistoryOptions) (HistoryActors, error) {
	opts = opts.withDefaults()
	s.mu.Lock()
	before := s.changes
	actors, err := s.ensureHistoryActors(s.historyWindowStart(opts).Add(-time.Hour))
	change := s.changes
	s.mu.Unlock()
	if err != nil {
		return HistoryActors{}, err
	}
	if change != before {
		if err := s.commit(change); err != nil {
			return HistoryActors{}, err
		}
	}
	return actors, nil
}

// ensureHistoryActors is EnsureHistoryActors under s.mu. Everything is
// checked before anything is added, so a refusal changes nothing.
func (s *Server) ensureHistoryActors(at time.Time) (HistoryActors, error) {
	keys := make([]*client.APIKey, len(historyUserSpecs))
	users := make([]*userRecord, len(historyUserSpecs))
	for i, spec := range historyUserSpecs {
		key, err := HistoryAPIKey(spec.name)
		if err != nil {
			return HistoryActors{}, err
		}
		keys[i] = key
		users[i] = s.historyUser(spec.name)
		if owner := s.st.userByKey(key.PublicKeyHex()); owner != nil && owner != users[i] {
			return HistoryActors{}, fmt.Errorf("emulator: history: the API key of %s belongs to user %s (%s) already", spec.name, owner.UserID, owner.UserName)
		}
	}
	privateKeys := make([]*privateKeyRecord, len(historyKeySpecs))
	for i, spec := range historyKeySpecs {
		for _, k := range s.st.PrivateKeys {
			if k.PrivateKeyName == spec.name {
				privateKeys[i] = k
			}
		}
		if k := privateKeys[i]; k != nil && k.Curve != curveSecp256k1 {
			return HistoryActors{}, fmt.Errorf("emulator: history: private key %q (%s) is a %s key; the history signs Ethereum transactions with it",
				spec.name, k.PrivateKeyID, k.Curve)
		}
	}

	newKeys := make([]*privateKeyRecord, len(historyKeySpecs))
	for i, spec := range historyKeySpecs {
		if privateKeys[i] == nil {
			rec, err := newHistoryPrivateKey(spec.name, client.NewTimestamp(at))
			if err != nil {
				return HistoryActors{}, err
			}
			newKeys[i] = rec
		}
	}

	ts := client.NewTimestamp(at)
	changed := false
	userTags, keyTags := map[string]string{}, map[string]string{}
	for _, spec := range historyUserSpecs {
		for _, tag := range spec.tags {
			userTags[tag] = s.historyTag(tagTypeUser, tag, ts, &changed).TagID
		}
	}
	for _, spec := range historyKeySpecs {
		for _, tag := range spec.tags {
			keyTags[tag] = s.historyTag(tagTypePrivateKey, tag, ts, &changed).TagID
		}
	}
	for i, spec := range historyUserSpecs {
		u := users[i]
		if u == nil {
			u = &userRecord{UserID: newID(), UserName: spec.name, Email: spec.email, APIKeys: []apiKeyRecord{}, CreatedAt: ts, Generated: true}
			for _, tag := range spec.tags {
				u.Tags = append(u.Tags, userTags[tag])
			}
			s.st.Users = append(s.st.Users, u)
			users[i], changed = u, true
		}
		if !slices.ContainsFunc(u.APIKeys, func(k apiKeyRecord) bool { return k.PublicKey == keys[i].PublicKeyHex() }) {
			u.APIKeys = append(u.APIKeys, apiKeyRecord{APIKeyID: newID(), Name: spec.name + " history key", PublicKey: keys[i].PublicKeyHex(),
				CreatedAt: ts, Generated: true})
			changed = true
		}
	}
	for i, spec := range historyKeySpecs {
		if rec := newKeys[i]; rec != nil {
			s.st.PrivateKeys[rec.PrivateKeyID] = rec
			for _, tag := range spec.tags {
				tagAddKey(s.st.Tags[keyTags[tag]], rec, ts)
			}
			privateKeys[i], changed = rec, true
		}
	}
	if changed {
		s.changed()
	}

	out := HistoryActors{UserTags: userTags, PrivateKeyTags: keyTags}
	for i, u := range users {
		out.Users = append(out.Users, HistoryUser{UserID: u.UserID, UserName: u.UserName, UserTags: slices.Clone(u.Tags),
			Bot: historyUserSpecs[i].bot, APIKey: keys[i]})
	}
	for _, k := range privateKeys {
		out.PrivateKeys = append(out.PrivateKeys, HistoryPrivateKey{PrivateKeyID: k.PrivateKeyID, PrivateKeyName: k.PrivateKeyName,
			Address: ethereumAddressOf(k), PrivateKeyTags: slices.Clone(k.Tags)})
	}
	return out, nil
}

// historyUser is the non-root user with that name, or nil.
func (s *Server) historyUser(name string) *userRecord {
	for _, u := range s.st.Users {
		if !u.Root && u.UserName == name {
			return u
		}
	}
	return nil
}

// findTag is the tag of that type and name, or nil.
func (s *Server) findTag(tagType, name string) *tagRecord {
	for _, t := range s.st.Tags {
		if t.TagType == tagType && t.TagName == name {
			return t
		}
	}
	return nil
}

// historyTag is the tag of that type and name, made as
// create_private_key_tag makes one if there is none.
func (s *Server) historyTag(tagType, name string, ts client.Timestamp, changed *bool) *tagRecord {
	if t := s.findTag(tagType, name); t != nil {
		return t
	}
	t := &tagRecord{Tag: client.Tag{TagID: newID(), TagName: name, TagType: tagType, CreatedAt: ts, UpdatedAt: ts}, PrivateKeyIDs: []string{}}
	s.st.Tags[t.TagID] = t
	*changed = true
	return t
}

// newHistoryPrivateKey is a secp256k1 key with its Ethereum address, as
// create_private_keys makes one, from the secret derived from its name.
func newHistoryPrivateKey(name string, ts client.Timestamp) (*privateKeyRecord, error) {
	kp, err := loadKeyPair(curveSecp256k1, hex.EncodeToString(historySecret("private key", name, 0)))
	if err != nil {
		return nil, fmt.Errorf("emulator: history: private key %s: %w", name, err)
	}
	addr, err := kp.address(addressEthereum)
	if err != nil {
		return nil, fmt.Errorf("emulator: history: private key %s: %w", name, err)
	}
	return &privateKeyRecord{PrivateKeyID: newID(), PrivateKeyName: name, Curve: curveSecp256k1, PublicKey: kp.publicKeyHex(),
		Secret: kp.secretHex(), Addresses: []client.Address{{Format: addressEthereum, Address: addr}}, Tags: []string{},
		CreatedAt: ts, UpdatedAt: ts}, nil
}

// HistoryAPIKey is the API key of the history's user with that name
// (payouts-bot, treasury-bot, alice, bob, carol): a P-256 test key derived
// from the name, so that tests and scripts can act as the user.
func HistoryAPIKey(userName string) (*client.APIKey, error) {
	for round := 0; ; round++ {
		secret := historySecret("API key", userName, round)
		priv, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), secret)
		if err != nil {
			continue // beyond the curve's order: about once in 2^32 names
		}
		pub, err := client.CompressPublicKey(&priv.PublicKey)
		if err != nil {
			return nil, err
		}
		return client.ParseAPIKey(pub, hex.EncodeToString(secret))
	}
}

// historySecret is the 32-byte secret of the history's key of that kind
// and name (round counts the retries of a secret out of range).
func historySecret(kind, name string, round int) []byte {
	sum := sha256.Sum256([]byte("custody-emulator history " + kind + " " + name + " " + strconv.Itoa(round)))
	return sum[:]
}
