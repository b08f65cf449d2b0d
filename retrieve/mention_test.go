package retrieve

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/internal/testutil"
	"github.com/relayhq/relay/retrieve/internal/diskindex"
)

// TestMentionRankingTypesNotConstructors: a Java class named in the text
// brings the class, not its constructors (Java names them after the
// class), and a class with a dozen constructors (more than
// maxMentionMatches nodes of that name) is still found. A method named
// in the text is found as before.
func TestMentionRankingTypesNotConstructors(t *testing.T) {
	t.Parallel()
	const path = "src/main/java/com/acme/FancyWidget.java"
	nodes := []graphdb.Node{
		{ID: "java:com.acme.FancyWidget", Kind: graphdb.KindType, SubKind: "class", Name: "FancyWidget", QName: "com.acme.FancyWidget", File: path},
		{ID: "java:com.acme.FancyWidget.render", Kind: graphdb.KindMember, SubKind: "method", Name: "render", QName: "com.acme.FancyWidget.render", File: path},
		{ID: "java:com.acme.TinyGadget", Kind: graphdb.KindType, SubKind: "class", Name: "TinyGadget", QName: "com.acme.TinyGadget", File: path},
		{ID: "java:com.acme.TinyGadget.TinyGadget", Kind: graphdb.KindMember, SubKind: "constructor", Name: "TinyGadget", QName: "com.acme.TinyGadget.TinyGadget", File: path},
	}
	for i := range maxMentionMatches { // FancyWidget(int), FancyWidget(int,int), …: a dozen overloads
		q := fmt.Sprintf("com.acme.FancyWidget.FancyWidget(%d)", i)
		nodes = append(nodes, graphdb.Node{ID: graphdb.NodeID("java:" + q), Kind: graphdb.KindMember, SubKind: "constructor", Name: "FancyWidget", QName: q, File: path})
	}
	g := testutil.Graph(t, []graphdb.FileRecord{{Path: path, Language: "java"}}, nodes, nil)
	ix := &diskindex.Index{}
	for _, n := range nodes {
		ix.Chunks = append(ix.Chunks, Chunk{Path: path, Kind: ChunkMethod, Name: n.Name, NodeID: n.ID})
	}
	s := newSearcher(t.TempDir(), g, ix, OpenOptions{})
	for _, tt := range []struct {
		q    string
		want []graphdb.NodeID
	}{
		{"FancyWidget fails to render", []graphdb.NodeID{"java:com.acme.FancyWidget"}},
		{"TinyGadget breaks", []graphdb.NodeID{"java:com.acme.TinyGadget"}},
		{"calling FancyWidget.render() twice", []graphdb.NodeID{"java:com.acme.FancyWidget.render"}},
	} {
		docs, err := s.mentionRanking(t.Context(), tt.q, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []graphdb.NodeID
		for _, d := range docs {
			got = append(got, s.ix.Chunks[d].NodeID)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.q, diff)
		}
	}
}
