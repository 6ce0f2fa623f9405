package store

import "testing"

// Names that look alike on a leaderboard share a key; names that read differently do not.
func TestParticipantNameKey(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"Ada", "ADA"}, {"Ada", "ａｄａ"}, {"Ada Lovelace", " ada   lovelace "}, {"Ada", "A\u200bda"}, {"Straße", "STRASSE"}, {"Zoë", "ZOË"}, {"Zoë", "Zoe\u0308"},
	} {
		if ParticipantNameKey(tc.a) != ParticipantNameKey(tc.b) {
			t.Errorf("ParticipantNameKey(%q) = %q, ParticipantNameKey(%q) = %q; want one key", tc.a, ParticipantNameKey(tc.a), tc.b, ParticipantNameKey(tc.b))
		}
	}
	for _, tc := range []struct{ a, b string }{{"Ada", "Ada2"}, {"Ada L", "AdaL"}, {"Zoë", "Zoe"}} {
		if ParticipantNameKey(tc.a) == ParticipantNameKey(tc.b) {
			t.Errorf("ParticipantNameKey(%q) = ParticipantNameKey(%q) = %q; want two keys", tc.a, tc.b, ParticipantNameKey(tc.a))
		}
	}
}
