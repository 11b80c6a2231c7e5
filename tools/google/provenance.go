package google

import (
	"net/mail"
	"strings"

	calendar "google.golang.org/api/calendar/v3"
	drive "google.golang.org/api/drive/v3"
	gmail "google.golang.org/api/gmail/v1"

	"github.com/co-cli/co/tools"
)

// Where the Google tools' results come from (tools.Origin). All of it is
// the user's private data; what someone else wrote is also untrusted:
//
//   - mail: every message, one origin per sender address. A From header
//     is not proof of who wrote a message (anyone can put the user's own
//     address there), so mail "from the user" is no exception.
//   - Drive: a file the user does not own (ownedByMe false or absent, a
//     shared drive's file), one they own that someone else edited last,
//     or one they own that someone else may edit (its permissions);
//     in a listing, the names of files the user does not own, one origin
//     per owner. The user's own files last edited by themselves carry no
//     origin: the workspace's kind of data.
//   - Calendar: an event someone else organised (organizer.self false or
//     absent) or created (creator.self false): its title, place and
//     attendees are theirs.

// maxNameInLabel bounds a file name inside an origin's label, so the
// owner after it still shows within tools.CleanLabel's 80 characters.
const maxNameInLabel = 40

func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// addOrigin appends o unless an origin of that label is there already.
func addOrigin(list []tools.Origin, o tools.Origin) []tools.Origin {
	for _, x := range list {
		if x.Label == o.Label {
			return list
		}
	}
	return append(list, o)
}

// mailOrigins are the senders of msgs, one origin per address.
func mailOrigins(msgs []*gmail.Message) []tools.Origin {
	var out []tools.Origin
	for _, m := range msgs {
		for _, s := range senders(header(m, "From")) {
			out = addOrigin(out, tools.UntrustedPrivate("mail", "mail from "+s))
		}
	}
	return out
}

// senders are the addresses of a From header, lower-cased; the header as
// it is when it does not parse, "an unknown sender" when empty.
func senders(from string) []string {
	if strings.TrimSpace(from) == "" {
		return []string{"an unknown sender"}
	}
	list, err := mail.ParseAddressList(from)
	if err != nil || len(list) == 0 {
		return []string{shorten(from, 60)}
	}
	out := make([]string, 0, len(list))
	for _, a := range list {
		out = append(out, strings.ToLower(a.Address))
	}
	return out
}

// mine reports whether the user owns f.
func mine(f *drive.File) bool {
	return f.OwnedByMe || (len(f.Owners) > 0 && f.Owners[0].Me)
}

// driveUser names a Drive user for a label: the address, else the name.
func driveUser(u *drive.User) string {
	if u == nil {
		return ""
	}
	if u.EmailAddress != "" {
		return strings.ToLower(u.EmailAddress)
	}
	return u.DisplayName
}

// ownerOf names who f belongs to, for a label.
func ownerOf(f *drive.File) string {
	if len(f.Owners) > 0 {
		if o := driveUser(f.Owners[0]); o != "" {
			return "owned by " + o
		}
	}
	if f.DriveId != "" {
		return "in a shared drive"
	}
	return "of an unknown owner"
}

// writeRoles are the roles that may change a file's content (the table of
// "Roles and permissions",
// https://developers.google.com/workspace/drive/api/guides/ref-roles:
// "Modify file content" for owner, organizer, fileOrganizer and writer).
var writeRoles = map[string]bool{"owner": true, "organizer": true, "fileOrganizer": true, "writer": true}

// otherWriter names someone other than the owner who may edit f, from its
// permissions; "" when no one may. The user owns f here, and a file in My
// Drive has one owner, so every other permission of a write role is
// someone else's. permissions is only given to a user who can share the
// file (the Files resource), which its owner always can: none at all is
// not knowing, and names "someone unknown".
func otherWriter(f *drive.File) string {
	if len(f.Permissions) == 0 {
		return "someone unknown"
	}
	for _, p := range f.Permissions {
		if !writeRoles[p.Role] || p.Role == "owner" {
			continue
		}
		switch p.Type {
		case "anyone":
			return "anyone with the link"
		case "domain":
			return "anyone at " + strings.ToLower(p.Domain)
		}
		if p.EmailAddress != "" {
			return strings.ToLower(p.EmailAddress)
		}
		return "someone unknown"
	}
	return ""
}

// fileOrigin is where the content of f comes from: none for a file of the
// user's that they edited last and that no one else may edit. Someone
// who could edit it once and can no longer, and whose words the user
// edited over, is not seen (Drive keeps no list of past editors that co
// reads: see docs/untrusted-content.md, "What it does not stop").
func fileOrigin(f *drive.File) (tools.Origin, bool) {
	name := `drive "` + shorten(f.Name, maxNameInLabel) + `" `
	if !mine(f) {
		return tools.UntrustedPrivate("drive", name+ownerOf(f)), true
	}
	if f.LastModifyingUser != nil && f.LastModifyingUser.Me {
		if w := otherWriter(f); w != "" {
			return tools.UntrustedPrivate("drive", name+"editable by "+w), true
		}
		return tools.Origin{}, false
	}
	// Drive names no last modifier for an edit by someone not signed in
	// (a link that lets anyone edit).
	who := driveUser(f.LastModifyingUser)
	if who == "" {
		who = "someone not signed in"
	}
	return tools.UntrustedPrivate("drive", name+"last edited by "+who), true
}

// fileFields are the fields fileOrigin reads.
const fileFields = "ownedByMe,driveId,owners(displayName,emailAddress,me),lastModifyingUser(displayName,emailAddress,me),permissions(type,role,emailAddress,domain)"

// listingOrigins are the owners of the files in a listing that are not
// the user's, and those who may edit the user's: their names were written
// by someone else.
func listingOrigins(files []*drive.File) []tools.Origin {
	var out []tools.Origin
	for _, f := range files {
		if mine(f) {
			// Anyone who may edit a file may rename it.
			if w := otherWriter(f); w != "" {
				out = addOrigin(out, tools.UntrustedPrivate("drive", "drive file names editable by "+w))
			}
			continue
		}
		from := "from an unknown owner"
		switch {
		case len(f.Owners) > 0 && driveUser(f.Owners[0]) != "":
			from = "from " + driveUser(f.Owners[0])
		case f.DriveId != "":
			from = "in a shared drive"
		}
		out = addOrigin(out, tools.UntrustedPrivate("drive", "drive file names "+from))
	}
	return out
}

// eventOrigins are the organisers (or creators) of the events someone
// else made.
func eventOrigins(events []*calendar.Event) []tools.Origin {
	var out []tools.Origin
	for _, e := range events {
		switch {
		case e.Organizer == nil:
			out = addOrigin(out, tools.UntrustedPrivate("calendar", "calendar event of an unknown organizer"))
		case !e.Organizer.Self:
			out = addOrigin(out, tools.UntrustedPrivate("calendar", "calendar invite from "+calendarUser(e.Organizer.Email, e.Organizer.DisplayName)))
		case e.Creator != nil && !e.Creator.Self:
			out = addOrigin(out, tools.UntrustedPrivate("calendar", "calendar event created by "+calendarUser(e.Creator.Email, e.Creator.DisplayName)))
		}
	}
	return out
}

func calendarUser(email, name string) string {
	switch {
	case email != "":
		return strings.ToLower(email)
	case name != "":
		return name
	}
	return "someone unknown"
}

// draftOutbound is what saving d sends: its recipients, subject and the
// start of its body.
func draftOutbound(d *Draft) *tools.Outbound {
	subject := d.Subject
	if subject == "" {
		subject = "(no subject)"
	}
	var lines []string
	for _, l := range strings.Split(d.Body, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
		if len(lines) == 3 {
			break
		}
	}
	what := subject
	if len(lines) > 0 {
		what += ": " + strings.Join(lines, " / ")
	}
	return &tools.Outbound{To: "mail draft to " + strings.Join(d.recipients(), ", "), What: shorten(what, 300)}
}
