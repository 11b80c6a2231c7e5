package deliver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/godbus/dbus/v5"
)

// The freedesktop Desktop Notifications service
// (https://specifications.freedesktop.org/notification-spec/latest/):
// org.freedesktop.Notifications on the session bus, object
// /org/freedesktop/Notifications, method Notify(app_name s, replaces_id u,
// app_icon s, summary s, body s, actions as, hints a{sv},
// expire_timeout i) → id u.
const (
	notifyService = "org.freedesktop.Notifications"
	notifyPath    = "/org/freedesktop/Notifications"
	notifyMethod  = notifyService + ".Notify"
	// AppName is the application name co gives its notifications.
	AppName = "co"
)

// Desktop is the session bus co finds, and the notification it sends
// there: called directly (github.com/godbus/dbus/v5), so no notify-send
// process is needed and it works where libnotify-bin is not installed.
type Desktop struct {
	// Getenv reads DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR (the
	// caller gives os.Getenv).
	Getenv func(string) string
	// UID is the user's id, for /run/user/UID/bus; 0 is os.Getuid().
	UID int
}

// BusAddress is the session bus's address: DBUS_SESSION_BUS_ADDRESS, or
// else the user bus socket $XDG_RUNTIME_DIR/bus (/run/user/UID/bus) when
// it exists. A cron job has no DBUS_SESSION_BUS_ADDRESS; godbus's own
// lookup (SessionBus) would then try /run/user/UID/bus, and failing that
// start a new, empty bus with dbus-launch (and set the variable in the
// process): a notification sent there reaches no one. So co finds the
// address itself and connects only to a bus that is there.
func (d Desktop) BusAddress() (string, error) {
	getenv := d.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if a := getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" && a != "autolaunch:" {
		return a, nil
	}
	uid := d.UID
	if uid == 0 {
		uid = os.Getuid()
	}
	var tried []string
	for _, dir := range []string{getenv("XDG_RUNTIME_DIR"), "/run/user/" + strconv.Itoa(uid)} {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, "bus")
		if st, err := os.Stat(p); err == nil && st.Mode()&os.ModeSocket != 0 {
			return "unix:path=" + dbus.EscapeBusAddressValue(p), nil
		}
		tried = append(tried, p)
	}
	return "", fmt.Errorf("no session bus: DBUS_SESSION_BUS_ADDRESS is not set and there is no %s. Desktop notifications need a desktop session "+
		"(log in to it; systemd's user manager provides the bus at $XDG_RUNTIME_DIR/bus — to keep it without a login: loginctl enable-linger $USER)",
		strings.Join(tried, " or "))
}

// Notify shows a notification with title and body, and returns its id.
// The body may carry markup where the server supports it (the spec's
// body-markup), so &, < and > are escaped.
func (d Desktop) Notify(ctx context.Context, title, body string) (uint32, error) {
	addr, err := d.BusAddress()
	if err != nil {
		return 0, err
	}
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		return 0, fmt.Errorf("cannot connect to the session bus %s: %v", addr, err)
	}
	defer conn.Close()
	var id uint32
	err = conn.Object(notifyService, notifyPath).CallWithContext(ctx, notifyMethod, 0,
		AppName, uint32(0), "", title, markupEscape(body), []string{}, map[string]dbus.Variant{}, int32(-1)).Store(&id)
	var de dbus.Error
	if errors.As(err, &de) && (de.Name == "org.freedesktop.DBus.Error.ServiceUnknown" || de.Name == "org.freedesktop.DBus.Error.NameHasNoOwner") {
		return 0, fmt.Errorf("no notification server on the session bus %s (nothing owns %s): start your desktop's, or one such as dunst or mako", addr, notifyService)
	}
	if err != nil {
		return 0, fmt.Errorf("the desktop notification: %v", err)
	}
	return id, nil
}

// markupEscape escapes what the spec's body markup would read as tags or
// entities.
func markupEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
