// A headless Chromium driven through its DevTools protocol, just enough to take screenshots
// of the Temporal UI: open a page, run a line of JavaScript in it, wait for text to appear,
// capture the viewport. Chromium's own --screenshot cannot wait for a page that keeps polling
// (a running workflow's page never settles), and cannot set the UI's saved columns.
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/websocket"

	"liken.sh/runner/internal/localstack"
)

// browser is a running headless Chromium and a connection to its one page.
type browser struct {
	cmd  *exec.Cmd
	ws   *websocket.Conn
	seq  int
	home string
}

// startBrowser starts Chromium headless, with a fresh profile and nothing that reaches the
// network on its own, and connects to its page.
func startBrowser(ctx context.Context, width, height int) (*browser, error) {
	port, err := localstack.FreePort()
	if err != nil {
		return nil, err
	}
	home, err := os.MkdirTemp("", "liken-screenshots-")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir="+filepath.Join(home, "profile"), "--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height),
		"--remote-debugging-address=127.0.0.1", "--remote-debugging-port="+strconv.Itoa(port), "--remote-allow-origins=*",
		"about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(home)
		return nil, fmt.Errorf("start chromium: %w", err)
	}
	b := &browser{cmd: cmd, home: home}
	page, err := pageSocket(ctx, port)
	if err == nil {
		b.ws, err = websocket.Dial(page, "", "http://127.0.0.1/")
	}
	if err != nil {
		b.close()
		return nil, fmt.Errorf("reach chromium's page: %w", err)
	}
	return b, nil
}

// pageSocket waits for Chromium's DevTools endpoint and returns its page's socket.
func pageSocket(ctx context.Context, port int) (string, error) {
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/json/list"
	for {
		if resp, err := http.Get(url); err == nil {
			var targets []struct{ Type, WebSocketDebuggerURL string }
			err = json.NewDecoder(resp.Body).Decode(&targets)
			resp.Body.Close()
			for _, t := range targets {
				if err == nil && t.Type == "page" {
					return t.WebSocketDebuggerURL, nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// call sends one DevTools command and returns its result, skipping the events in between.
func (b *browser) call(method string, params map[string]any, result any) error {
	b.seq++
	if err := websocket.JSON.Send(b.ws, map[string]any{"id": b.seq, "method": method, "params": params}); err != nil {
		return err
	}
	for {
		var msg struct {
			ID     int
			Result json.RawMessage
			Error  *struct{ Message string }
		}
		if err := websocket.JSON.Receive(b.ws, &msg); err != nil {
			return err
		}
		if msg.ID != b.seq {
			continue
		}
		if msg.Error != nil {
			return fmt.Errorf("%s: %s", method, msg.Error.Message)
		}
		if result == nil {
			return nil
		}
		return json.Unmarshal(msg.Result, result)
	}
}

// open loads a page.
func (b *browser) open(url string) error {
	return b.call("Page.navigate", map[string]any{"url": url}, nil)
}

// eval runs JavaScript in the page and returns its value as a string.
func (b *browser) eval(js string) (string, error) {
	var out struct {
		Result struct{ Value any }
	}
	err := b.call("Runtime.evaluate", map[string]any{"expression": js, "returnByValue": true}, &out)
	return fmt.Sprint(out.Result.Value), err
}

// waitText waits (bounded by ctx) until the page shows every one of the texts, then a moment
// more for it to finish drawing.
func (b *browser) waitText(ctx context.Context, texts ...string) error {
	for {
		body, err := b.eval("document.body ? document.body.innerText : ''")
		missing := ""
		for _, t := range texts {
			if !strings.Contains(body, t) {
				missing = t
				break
			}
		}
		if err == nil && missing == "" {
			time.Sleep(time.Second)
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the page never showed %q: %w", missing, errors.Join(err, ctx.Err()))
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// scrollTo scrolls the page until the element that shows text is in the middle.
func (b *browser) scrollTo(text string) error {
	js := `(() => { const t = ` + strconv.Quote(text) + `;
		const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
		for (let n = w.nextNode(); n; n = w.nextNode()) {
			if (n.textContent.includes(t)) { n.parentElement.scrollIntoView({block: 'center'}); return 'found'; }
		}
		return 'missing'; })()`
	got, err := b.eval(js)
	if err == nil && got != "found" {
		err = fmt.Errorf("no %q on the page", text)
	}
	time.Sleep(500 * time.Millisecond)
	return err
}

// size sets the page's viewport.
func (b *browser) size(width, height int) error {
	return b.call("Emulation.setDeviceMetricsOverride", map[string]any{
		"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false,
	}, nil)
}

// shoot writes the viewport as a PNG.
func (b *browser) shoot(file string) error {
	var out struct{ Data string }
	if err := b.call("Page.captureScreenshot", map[string]any{"format": "png"}, &out); err != nil {
		return err
	}
	img, err := base64.StdEncoding.DecodeString(out.Data)
	if err != nil {
		return err
	}
	return os.WriteFile(file, img, 0o644)
}

func (b *browser) close() {
	if b.ws != nil {
		b.ws.Close()
	}
	syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
	b.cmd.Wait()
	os.RemoveAll(b.home)
}
