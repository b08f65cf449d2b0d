// Package api exposes notifications over HTTP.
package api

import (
	"encoding/json"
	"errors"
	"net/http"

	"example.com/sample/notify"
	"example.com/sample/store"
)

// Server is the HTTP front end.
type Server struct {
	http.Server
	Users  store.Reader
	Notify *notify.Service
}

// NewServer wires a Server with its routes.
func NewServer(addr string, users store.Reader, svc *notify.Service) *Server {
	s := &Server{Users: users, Notify: svc}
	mux := http.NewServeMux()
	mux.HandleFunc("/notify", s.handleNotify)
	mux.HandleFunc("/healthz", healthz)
	s.Addr = addr
	s.Handler = mux
	return s
}

type notifyRequest struct {
	UserID  string `json:"user_id"`
	Subject string `json:"subject"`
	Body    string `json:"body"`
	SMS     bool   `json:"sms"`
}

func (s *Server) handleNotify(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	var req notifyRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad json: "+err.Error(), http.StatusBadRequest)
		return
	}
	u, err := s.Users.Get(req.UserID)
	if errors.Is(err, store.ErrNotFound) {
		http.Error(w, "unknown user", http.StatusNotFound)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	to := u.Email
	if req.SMS {
		to = u.Phone
	}
	if err := s.Notify.Send(r.Context(), notify.Message{To: to, Subject: req.Subject, Body: req.Body}); err != nil {
		writeError(w, err)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

func writeError(w http.ResponseWriter, err error) {
	code := http.StatusBadGateway
	if errors.Is(err, notify.ErrInvalidRecipient) {
		code = http.StatusBadRequest
	}
	http.Error(w, err.Error(), code)
}

func healthz(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }
