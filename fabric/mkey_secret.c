/* SPDX-License-Identifier: MIT */
/* The M_Key secret file: 32 random bytes, mode 0600, created once (mkey.h). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabric/mkey.h"
#include "lib/cleanup.h"

int mkey_dir_sync(const char *file)
{
	_cleanup_free_ char *copy = strdup(file);
	int fd, r = 0;

	if (!copy)
		return -ENOMEM;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		r = -errno;
	close(fd);
	return r;
}

static int read_secret(int fd, uint8_t secret[MKEY_SECRET_LEN])
{
	uint8_t buf[MKEY_SECRET_LEN + 1];
	size_t got = 0;
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	/* Anything beyond owner read/write lets another user learn every key. */
	if (st.st_mode & 0177)
		return -EPERM;
	while (got < sizeof(buf)) {
		ssize_t n = read(fd, buf + got, sizeof(buf) - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got != MKEY_SECRET_LEN)
		return -EPROTO;
	memcpy(secret, buf, MKEY_SECRET_LEN);
	explicit_bzero(buf, sizeof(buf));
	return 0;
}

static int create_secret(const char *file, uint8_t secret[MKEY_SECRET_LEN])
{
	_cleanup_free_ char *tmp = malloc(strlen(file) + 8);
	uint8_t s[MKEY_SECRET_LEN];
	size_t got = 0;
	int fd, r = 0;

	if (!tmp)
		return -ENOMEM;
	while (got < sizeof(s)) {
		ssize_t n = getrandom(s + got, sizeof(s) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		got += (size_t)n;
	}
	strcpy(tmp, file);
	strcat(tmp, ".XXXXXX");
	fd = mkostemp(tmp, O_CLOEXEC); /* mode 0600 */
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0600) < 0 || write(fd, s, sizeof(s)) != (ssize_t)sizeof(s) || fsync(fd) < 0)
		r = errno ? -errno : -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	/* link(), not rename(): a secret another loomd created meanwhile is not replaced. */
	if (r == 0 && link(tmp, file) < 0)
		r = -errno;
	unlink(tmp);
	if (r == 0)
		r = mkey_dir_sync(file);
	if (r == 0)
		memcpy(secret, s, sizeof(s));
	explicit_bzero(s, sizeof(s));
	return r;
}

int mkey_secret_load(const char *file, uint8_t secret[MKEY_SECRET_LEN], bool *created)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	int r;

	*created = false;
	if (fd < 0 && errno == ENOENT) {
		r = create_secret(file, secret);
		if (r != -EEXIST) {
			*created = r == 0;
			return r;
		}
		fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	}
	if (fd < 0)
		return -errno;
	r = read_secret(fd, secret);
	close(fd);
	return r;
}
