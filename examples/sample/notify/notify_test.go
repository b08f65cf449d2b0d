package notify

import (
	"context"
	"testing"

	"example.com/sample/internal/retry"
)

type fakeGateway struct{ calls int }

func (f *fakeGateway) Submit(_ context.Context, number, text string) (string, error) {
	f.calls++
	return "id", nil
}

func TestSendSMS(t *testing.T) {
	gw := &fakeGateway{}
	svc := NewService(retry.Policy{Attempts: 2}, &SMSSender{Gateway: gw})
	if err := svc.Send(context.Background(), Message{To: "+4912345", Body: "hi"}); err != nil {
		t.Fatal(err)
	}
	if gw.calls != 1 {
		t.Fatalf("calls = %d, want 1", gw.calls)
	}
}
