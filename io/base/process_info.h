#pragma once
// Who, where and when, as every record io writes states them (audit lines, revisions, leases, reports, autosave
// journals): the process's user, this machine's name and the time in UTC.

#include <string>

namespace delineate::io {

// Now, UTC, ISO 8601 with milliseconds ("2026-11-22T03:15:10.123Z"): the time format of audit records and revisions.
std::string utcNowIso();
// The login name of this process's effective user (the user database, then $USER, then "uid-N").
std::string processUserName();
// The author that revisions, checkpoints, datasets and imports name: $DELINEATE_AUTHOR when it is set (the window
// sets it for the programs it runs, from its preferences' author name), else processUserName(). Audit records and
// leases' holders keep the login (who really acted).
std::string authorName();
// This machine's hostname; empty when it cannot be read.
std::string localHostName();
// This user's cache folder for Delineate: $XDG_CACHE_HOME (or ~/.cache)/delineate. Local disk: fetched series,
// catalogue indexes and models live here, never on the share.
std::string userCacheFolder();
// This user's configuration folder for Delineate: $XDG_CONFIG_HOME (or ~/.config)/delineate (keys, pins).
std::string userConfigFolder();

}  // namespace delineate::io
