/**
 * git sends a remote URL's user name and password only after the server answered 401, so each
 * fetch of a job began with a request refused. The job token's Basic header, given to git for
 * that one repository URL through GIT_CONFIG_COUNT/KEY/VALUE (git 2.31 and later; older ones
 * ignore them and keep asking twice), goes with the first request. An environment variable, not
 * a `-c` argument: a process's arguments are readable by every user of the machine.
 */
export function proactiveAuthEnvironment(remoteUrl: string, environment: Readonly<Record<string, string | undefined>>): Record<string, string> {
  let url: URL;
  try {
    url = new URL(remoteUrl);
  } catch {
    return {};
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username === '' || url.password === '') return {};
  const count = environment.GIT_CONFIG_COUNT ?? '0';
  // A count git would refuse stays git's to report, untouched.
  if (!/^\d{1,4}$/.test(count)) return {};
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  url.username = '';
  url.password = '';
  const index = Number(count);
  return {
    GIT_CONFIG_COUNT: String(index + 1),
    [`GIT_CONFIG_KEY_${index}`]: `http.${url.href}.extraHeader`,
    [`GIT_CONFIG_VALUE_${index}`]: `Authorization: Basic ${Buffer.from(credentials).toString('base64')}`,
  };
}
