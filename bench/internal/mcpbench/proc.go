// Package mcpbench holds what bench/perf and bench/soak share: MCP clients
// over stdio and streamable HTTP that stay out of the way of the server
// they measure, readings of a process from /proc, quantiles, throwaway
// PostgreSQL clusters and MariaDB servers, and the generated datasets.
package mcpbench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTick is the kernel's USER_HZ: /proc/<pid>/stat counts CPU time in
// hundredths of a second on Linux.
const clockTick = 10 * time.Millisecond

// CPU returns the CPU time (user + system) the process pid and its living
// descendants have used, from /proc/<pid>/stat, in milliseconds; -1 when
// pid is gone. The servers measured are one process each; the walk over
// children keeps a wrapper (a shell, npx) from hiding the real server.
func CPU(pid int) float64 {
	total, found := 0.0, false
	for _, p := range tree(pid) {
		f, err := statFields(p)
		if err != nil {
			continue
		}
		u, _ := strconv.ParseFloat(f[11], 64)
		s, _ := strconv.ParseFloat(f[12], 64)
		total += (u + s) * float64(clockTick/time.Millisecond)
		found = true
	}
	if !found {
		return -1
	}
	return total
}

// RSS returns the resident memory of pid and its descendants in KiB, from
// /proc/<pid>/status (VmRSS); -1 when pid is gone.
func RSS(pid int) int {
	total, found := 0, false
	for _, p := range tree(pid) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p))
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "VmRSS:") {
				if f := strings.Fields(l); len(f) > 1 {
					n, _ := strconv.Atoi(f[1])
					total += n
					found = true
				}
			}
		}
	}
	if !found {
		return -1
	}
	return total
}

// SelfCPU is this process's own CPU time (user + system) in milliseconds:
// what the load generator costs.
func SelfCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
}

// statFields returns the fields of /proc/<pid>/stat after the command
// name: f[0] is the state, f[1] the parent, f[11] utime, f[12] stime.
func statFields(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 > len(s) {
		return nil, fmt.Errorf("/proc/%d/stat: unexpected %q", pid, s)
	}
	f := strings.Fields(s[i+2:])
	if len(f) < 13 {
		return nil, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	return f, nil
}

// tree returns pid and its descendants.
func tree(pid int) []int {
	out := []int{pid}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	kids := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil || p == pid {
			continue
		}
		if f, err := statFields(p); err == nil {
			pp, _ := strconv.Atoi(f[1])
			kids[pp] = append(kids[pp], p)
		}
	}
	for i := 0; i < len(out); i++ {
		out = append(out, kids[out[i]]...)
	}
	return out
}

// setpgid puts a child in a process group of its own, so that a Ctrl-C in
// the terminal reaches this program alone, which then stops its children
// in order; Pdeathsig kills the child if this program dies first.
func setpgid() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// ChildAttr is setpgid plus a SIGKILL when this program dies: for servers
// that must not outlive the measurement.
func ChildAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
