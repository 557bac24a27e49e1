package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DeviceLogin is `gocodex login --device-auth`: a one-time code the person enters at
// {issuer}/codex/device, the token endpoint polled at the server's interval, then the code
// exchange. For SSH sessions and machines without a browser.
func DeviceLogin(ctx context.Context, s *Store, o LoginOptions) (*File, error) {
	d, err := StartDeviceLogin(ctx, o)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(o.Out, "Follow these steps to sign in with ChatGPT using device code authorization:")
	fmt.Fprintf(o.Out, "\n1. Open this link in your browser and sign in to your account\n   %s\n", d.VerificationURL)
	fmt.Fprintf(o.Out, "\n2. Enter this one-time code (expires in 15 minutes)\n   %s\n\n", d.UserCode)
	fmt.Fprintln(o.Out, "Continue only if you started this login in gocodex. If a website or another person gave you this code, cancel.")
	return d.Wait(ctx, s)
}

// DeviceCode is a device sign-in waiting for the person to enter UserCode at VerificationURL.
type DeviceCode struct {
	VerificationURL string
	UserCode        string
	deviceAuthID    string
	interval        time.Duration
	o               LoginOptions
}

// StartDeviceLogin asks the issuer for a one-time code.
func StartDeviceLogin(ctx context.Context, o LoginOptions) (*DeviceCode, error) {
	o.defaults()
	api := o.Issuer + "/api/accounts/deviceauth"
	var uc struct {
		DeviceAuthID string          `json:"device_auth_id"`
		UserCode     string          `json:"user_code"`
		UserCodeAlt  string          `json:"usercode"`
		Interval     json.RawMessage `json:"interval"`
	}
	status, err := postDevice(ctx, o, api+"/usercode", map[string]string{"client_id": o.ClientID}, &uc)
	if err != nil {
		return nil, fmt.Errorf("failed to request device code: %w", err)
	}
	if status == http.StatusNotFound {
		return nil, errors.New("device code login is not enabled for this server; use the browser login (`gocodex login`)")
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("failed to request device code: the issuer answered %d %s", status, http.StatusText(status))
	}
	if uc.UserCode == "" {
		uc.UserCode = uc.UserCodeAlt
	}
	if uc.DeviceAuthID == "" || uc.UserCode == "" {
		return nil, errors.New("failed to request device code: the issuer's answer has no device_auth_id and user_code")
	}
	return &DeviceCode{VerificationURL: o.Issuer + "/codex/device", UserCode: uc.UserCode,
		deviceAuthID: uc.DeviceAuthID, interval: parseInterval(uc.Interval), o: o}, nil
}

// Wait polls at the issuer's interval until the code is approved, then exchanges it and
// stores the credentials.
func (d *DeviceCode) Wait(ctx context.Context, s *Store) (*File, error) {
	o, api, interval := d.o, d.o.Issuer+"/api/accounts/deviceauth", d.interval
	uc := struct{ DeviceAuthID, UserCode string }{d.deviceAuthID, d.UserCode}
	pctx, cancel := context.WithTimeout(ctx, o.PollLimit)
	defer cancel()
	var grant struct {
		AuthorizationCode string `json:"authorization_code"`
		CodeChallenge     string `json:"code_challenge"`
		CodeVerifier      string `json:"code_verifier"`
	}
	for {
		status, err := postDevice(pctx, o, api+"/token", map[string]string{"device_auth_id": uc.DeviceAuthID, "user_code": uc.UserCode}, &grant)
		switch {
		case err != nil && pctx.Err() != nil && ctx.Err() == nil:
			return nil, errors.New("device auth timed out after 15 minutes")
		case err != nil:
			return nil, fmt.Errorf("device auth: %w", err)
		case status == http.StatusOK:
			if grant.AuthorizationCode == "" || grant.CodeVerifier == "" {
				return nil, errors.New("device auth: the issuer's answer has no authorization_code and code_verifier")
			}
			tok, err := exchangeCode(ctx, o, grant.AuthorizationCode, o.Issuer+"/deviceauth/callback", grant.CodeVerifier)
			if err != nil {
				return nil, err
			}
			return storeTokens(s, o, tok, nil)
		case status == http.StatusForbidden || status == http.StatusNotFound:
			// Not approved yet.
		default:
			return nil, fmt.Errorf("device auth failed: the issuer answered %d %s", status, http.StatusText(status))
		}
		select {
		case <-pctx.Done():
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, errors.New("device auth timed out after 15 minutes")
		case <-time.After(interval):
		}
	}
}

// parseInterval reads the poll interval, a number of seconds sent as a string (or a number);
// 5 s when it is missing or nonsense.
func parseInterval(raw json.RawMessage) time.Duration {
	s := strings.Trim(string(raw), `" `)
	if n, err := strconv.ParseFloat(s, 64); err == nil && n > 0 && n < 600 {
		return time.Duration(n * float64(time.Second))
	}
	return 5 * time.Second
}

// postDevice posts JSON and decodes a 200 answer into out; other statuses are returned.
func postDevice(ctx context.Context, o LoginOptions, url string, body any, out any) (int, error) {
	data, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("originator", o.Originator)
	resp, err := o.HTTP.Do(req)
	if err != nil {
		return 0, redactURLError(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, err
	}
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(raw, out); err != nil {
			return 0, errors.New("the issuer's answer is not JSON")
		}
	}
	return resp.StatusCode, nil
}
