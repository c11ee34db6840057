package mcpbench

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Server is a server process this program started, its stderr (and
// stdout) going to a log file.
type Server struct {
	Cmd    *exec.Cmd
	Log    string
	exited chan struct{}
	err    error
}

// Spawn starts argv, with env added to this program's environment, in a
// process group of its own that dies with this program.
func Spawn(argv, env []string, logPath string) (*Server, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = ChildAttr()
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	s := &Server{Cmd: cmd, Log: logPath, exited: make(chan struct{})}
	go func() { s.err = cmd.Wait(); f.Close(); close(s.exited) }()
	return s, nil
}

// Pid is the server's process id.
func (s *Server) Pid() int { return s.Cmd.Process.Pid }

// Exited is closed when the server has exited.
func (s *Server) Exited() <-chan struct{} { return s.exited }

// Stop sends SIGTERM, waits up to grace, then kills. It returns how the
// server exited (nil: status 0) and whether it had to be killed.
func (s *Server) Stop(grace time.Duration) (error, bool) {
	select {
	case <-s.exited:
		return s.err, false
	default:
	}
	s.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
		return s.err, false
	case <-time.After(grace):
		s.Cmd.Process.Kill()
		<-s.exited
		return s.err, true
	}
}

// WaitReady calls tools/list on c until it answers, the server exits or
// timeout passes.
func (s *Server) WaitReady(ctx context.Context, c *HTTP, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var err error
	for time.Now().Before(deadline) {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		var r Reply
		r, err = c.Call(cctx, "tools/list", map[string]any{})
		cancel()
		if err == nil && r.Error == nil {
			return nil
		}
		if err == nil {
			err = r.Error
		}
		select {
		case <-s.exited:
			return fmt.Errorf("%s exited (%v): see %s", s.Cmd.Path, s.err, s.Log)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s not ready after %v: %v (see %s)", s.Cmd.Path, timeout, err, s.Log)
}

// FreePort is a TCP port on 127.0.0.1 nobody listens on now.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
