package emulator

import (
	"slices"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// tagTypePrivateKey marks private key tags in state.Tags, which may also
// hold user tags: every lookup here ignores tags of another type.
const tagTypePrivateKey = "TAG_TYPE_PRIVATE_KEY"

func init() {
	registerSubmit(client.OpCreatePrivateKeyTag,
		[]string{"privateKeyTagName", "privateKeyIds"},
		func(p *client.CreatePrivateKeyTagParams) *apiError {
			if e := checkName("parameters.privateKeyTagName", p.PrivateKeyTagName); e != nil {
				return e
			}
			return checkUniqueIDs("parameters.privateKeyIds", p.PrivateKeyIDs)
		},
		runCreatePrivateKeyTag)
	registerSubmit(client.OpUpdatePrivateKeyTag,
		[]string{"privateKeyTagId", "addPrivateKeyIds", "removePrivateKeyIds"}, validateUpdatePrivateKeyTag, runUpdatePrivateKeyTag)
	registerSubmit(client.OpDeletePrivateKeyTags,
		[]string{"privateKeyTagIds"},
		func(p *client.DeletePrivateKeyTagsParams) *apiError {
			return checkUniqueIDs("parameters.privateKeyTagIds", p.PrivateKeyTagIDs)
		},
		runDeletePrivateKeyTags)
	registerQuery(client.QueryListPrivateKeyTags, nil, func(s *Server, _ *caller, _ *client.ListPrivateKeyTagsRequest) (any, *apiError) {
		out := []client.Tag{}
		for _, t := range s.st.Tags {
			if t.TagType == tagTypePrivateKey {
				out = append(out, t.Tag)
			}
		}
		slices.SortFunc(out, func(a, b client.Tag) int { return byCreatedThenID(a.CreatedAt, b.CreatedAt, a.TagID, b.TagID) })
		return client.ListPrivateKeyTagsResponse{PrivateKeyTags: out}, nil
	})
}

func runCreatePrivateKeyTag(s *Server, _ *caller, p *client.CreatePrivateKeyTagParams) (any, *client.Status) {
	if f := s.checkTagNameFree(p.PrivateKeyTagName, ""); f != nil {
		return nil, f
	}
	keys, f := s.privateKeysByID(p.PrivateKeyIDs)
	if f != nil {
		return nil, f
	}
	now := client.NewTimestamp(s.now())
	tag := &tagRecord{Tag: client.Tag{TagID: newID(), TagName: p.PrivateKeyTagName, TagType: tagTypePrivateKey, CreatedAt: now, UpdatedAt: now},
		PrivateKeyIDs: []string{}}
	s.st.Tags[tag.TagID] = tag
	for _, k := range keys {
		tagAddKey(tag, k, now)
	}
	return client.CreatePrivateKeyTagResult{PrivateKeyTagID: tag.TagID, PrivateKeyIDs: slices.Clone(tag.PrivateKeyIDs)}, nil
}

func validateUpdatePrivateKeyTag(p *client.UpdatePrivateKeyTagParams) *apiError {
	if p.NewPrivateKeyTagName != "" { // empty means "keep the name"
		if e := checkName("parameters.newPrivateKeyTagName", p.NewPrivateKeyTagName); e != nil {
			return e
		}
	}
	if e := checkUniqueIDs("parameters.addPrivateKeyIds", p.AddPrivateKeyIDs); e != nil {
		return e
	}
	if e := checkUniqueIDs("parameters.removePrivateKeyIds", p.RemovePrivateKeyIDs); e != nil {
		return e
	}
	for i, id := range p.RemovePrivateKeyIDs {
		if slices.Contains(p.AddPrivateKeyIDs, id) {
			return errInvalid("field parameters.removePrivateKeyIds[%d]: %q is also in addPrivateKeyIds; a key cannot be both added and removed", i, id)
		}
	}
	return nil
}

// runUpdatePrivateKeyTag applies a rename and membership changes in one
// step. Adding a key that already carries the tag, or removing one that
// does not, is accepted and changes nothing: the request states the
// membership wanted, and a retried update must not fail.
func runUpdatePrivateKeyTag(s *Server, _ *caller, p *client.UpdatePrivateKeyTagParams) (any, *client.Status) {
	tag := s.privateKeyTag(p.PrivateKeyTagID)
	if tag == nil {
		return nil, notFound("private key tag %s not found", p.PrivateKeyTagID)
	}
	add, f := s.privateKeysByID(p.AddPrivateKeyIDs)
	if f != nil {
		return nil, f
	}
	remove, f := s.privateKeysByID(p.RemovePrivateKeyIDs)
	if f != nil {
		return nil, f
	}
	if p.NewPrivateKeyTagName != "" {
		if f := s.checkTagNameFree(p.NewPrivateKeyTagName, tag.TagID); f != nil {
			return nil, f
		}
		tag.TagName = p.NewPrivateKeyTagName
	}
	now := client.NewTimestamp(s.now())
	for _, k := range add {
		tagAddKey(tag, k, now)
	}
	for _, k := range remove {
		tagRemoveKey(tag, k, now)
	}
	tag.UpdatedAt = now
	return client.UpdatePrivateKeyTagResult{PrivateKeyTagID: tag.TagID}, nil
}

// runDeletePrivateKeyTags deletes all the tags or, when one is unknown,
// none of them.
func runDeletePrivateKeyTags(s *Server, _ *caller, p *client.DeletePrivateKeyTagsParams) (any, *client.Status) {
	tags := make([]*tagRecord, 0, len(p.PrivateKeyTagIDs))
	for _, id := range p.PrivateKeyTagIDs {
		t := s.privateKeyTag(id)
		if t == nil {
			return nil, notFound("private key tag %s not found", id)
		}
		tags = append(tags, t)
	}
	now := client.NewTimestamp(s.now())
	result := client.DeletePrivateKeyTagsResult{PrivateKeyTagIDs: nonNilSlice(slices.Clone(p.PrivateKeyTagIDs)), PrivateKeyIDs: []string{}}
	for _, t := range tags {
		for _, keyID := range slices.Clone(t.PrivateKeyIDs) {
			if !slices.Contains(result.PrivateKeyIDs, keyID) {
				result.PrivateKeyIDs = append(result.PrivateKeyIDs, keyID)
			}
			if k := s.st.PrivateKeys[keyID]; k != nil {
				tagRemoveKey(t, k, now)
			}
		}
		delete(s.st.Tags, t.TagID)
	}
	return result, nil
}

// privateKeyTag is the private key tag with that id, or nil.
func (s *Server) privateKeyTag(id string) *tagRecord {
	if t := s.st.Tags[id]; t != nil && t.TagType == tagTypePrivateKey {
		return t
	}
	return nil
}

// checkTagNameFree fails when another private key tag (not except) has
// the name.
func (s *Server) checkTagNameFree(name, except string) *client.Status {
	for _, t := range s.st.Tags {
		if t.TagType == tagTypePrivateKey && t.TagID != except && t.TagName == name {
			return failure(client.CodeAlreadyExists, "a private key tag named %q already exists (%s)", name, t.TagID)
		}
	}
	return nil
}

// privateKeysByID resolves ids, failing NOT_FOUND on the first unknown one.
func (s *Server) privateKeysByID(ids []string) ([]*privateKeyRecord, *client.Status) {
	out := make([]*privateKeyRecord, 0, len(ids))
	for _, id := range ids {
		k := s.st.PrivateKeys[id]
		if k == nil {
			return nil, notFound("private key %s not found", id)
		}
		out = append(out, k)
	}
	return out, nil
}

// tagAddKey and tagRemoveKey keep both sides of the membership in step:
// the tag's key list and the key's tag list. A key's updatedAt moves when
// its privateKeyTags change, since that is part of what list_private_keys
// shows of it.
func tagAddKey(t *tagRecord, k *privateKeyRecord, now client.Timestamp) {
	if !slices.Contains(t.PrivateKeyIDs, k.PrivateKeyID) {
		t.PrivateKeyIDs = append(t.PrivateKeyIDs, k.PrivateKeyID)
	}
	if !slices.Contains(k.Tags, t.TagID) {
		k.Tags = append(k.Tags, t.TagID)
		k.UpdatedAt = now
	}
}

func tagRemoveKey(t *tagRecord, k *privateKeyRecord, now client.Timestamp) {
	t.PrivateKeyIDs = slices.DeleteFunc(t.PrivateKeyIDs, func(id string) bool { return id == k.PrivateKeyID })
	if slices.Contains(k.Tags, t.TagID) {
		k.Tags = slices.DeleteFunc(k.Tags, func(id string) bool { return id == t.TagID })
		k.UpdatedAt = now
	}
}
