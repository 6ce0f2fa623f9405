package sqlstore

import (
	"bytes"
	"errors"
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

// assemble puts tools back into an envelope as loadSnapshot does, from the encoder's output.
func assemble(t *testing.T, sn snapshot, jsons map[listing.Hash][]byte) []byte {
	t.Helper()
	hs, offs, err := decodeList(sn.list, len(sn.envelope))
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	prev := 0
	for i, h := range hs {
		out = append(append(out, sn.envelope[prev:offs[i]]...), jsons[h]...)
		prev = offs[i]
	}
	return append(out, sn.envelope[prev:]...)
}

func TestEncodeSnapshotRoundTrip(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"array", `[{"name": "a"}, {"name": "b", "x": [1, {"y": null}]}]`},
		{"empty array", `[]`},
		{"result", `{"tools": [{"name": "a"}], "nextCursor": "tools: [{\"name\": \"a\"}]"}`},
		{"result without tools", `{"tools": []}`},
		{"response", `{"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "a"}, {"name": "a"}]}}`},
		{"one tool", `{"name": "solo", "description": "nul \u0000 escaped"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := listing.Parse([]byte(tc.src), listing.Options{Name: tc.name})
			if err != nil {
				t.Fatal(err)
			}
			sn, err := encodeSnapshot(l, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := l.Marshal("")
			if got := assemble(t, sn, sn.fresh); !bytes.Equal(got, want) {
				t.Errorf("reassembled\n%s\nwant\n%s", got, want)
			}
			if sn.size != len(want) {
				t.Errorf("size %d, want %d", sn.size, len(want))
			}
			// Encoded again with every tool known, nothing is fresh and the parts are the same.
			again, err := encodeSnapshot(l, knownTools(l, sn.refs))
			if err != nil {
				t.Fatal(err)
			}
			if len(again.fresh) != 0 || !bytes.Equal(again.envelope, sn.envelope) || !bytes.Equal(again.list, sn.list) || again.size != sn.size {
				t.Errorf("with known tools: %d fresh, envelope or list differ", len(again.fresh))
			}
		})
	}
}

func TestDecodeListRejectsCorruption(t *testing.T) {
	h := make([]byte, 32)
	for _, tc := range []struct {
		name string
		list []byte
		n    int
	}{
		{"short hash", h[:10], 5},
		{"no offset", h, 5},
		{"offset past the envelope", append(append([]byte{}, h...), 9), 5},
		{"offsets going back", append(append(append(append([]byte{}, h...), 4), h...), 2), 5},
		{"bad varint", append(append([]byte{}, h...), 0xff, 0xff), 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := decodeList(tc.list, tc.n); !errors.Is(err, errCorrupt) {
				t.Errorf("got %v, want a corrupt listing error", err)
			}
		})
	}
}

func FuzzDecodeList(f *testing.F) {
	f.Add([]byte{}, 0)
	f.Add(append(make([]byte, 32), 3), 5)
	f.Fuzz(func(t *testing.T, list []byte, n int) {
		if n < 0 {
			n = -n
		}
		hs, offs, err := decodeList(list, n)
		if err != nil {
			return
		}
		prev := 0
		for i := range hs {
			if offs[i] < prev || offs[i] > n {
				t.Fatalf("offset %d out of order or past %d", offs[i], n)
			}
			prev = offs[i]
		}
	})
}
