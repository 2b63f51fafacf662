/* SPDX-License-Identifier: MIT */
#ifndef LOOM_LOG_H
#define LOOM_LOG_H

/*
 * Logging for the edges (loomd's loop, loom subcommands): one line per event
 * on stderr. Under systemd (JOURNAL_STREAM set) each line starts with the
 * syslog priority in sd-daemon(3) form, so journalctl -p filters it.
 */
enum log_level { LOG_LVL_ERR = 3, LOG_LVL_WARN = 4, LOG_LVL_INFO = 6, LOG_LVL_DEBUG = 7 };

void log_init(const char *ident, enum log_level max);
void log_at(enum log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_err(...) log_at(LOG_LVL_ERR, __VA_ARGS__)
#define log_warn(...) log_at(LOG_LVL_WARN, __VA_ARGS__)
#define log_info(...) log_at(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_at(LOG_LVL_DEBUG, __VA_ARGS__)

#endif
