#include "tests/pacs/test_certificates.h"

#include <fstream>
#include <stdexcept>

#include "tests/common/test_support.h"
#include "tests/pacs/orthanc_server.h"

namespace delineate::test {
namespace fs = std::filesystem;

namespace {
void run(const std::string& command) {
  std::string out;
  if (runCommand(command, &out) != 0) throw std::runtime_error("openssl failed: " + command + "\n" + out);
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

void makeCa(const fs::path& cert, const fs::path& key, const std::string& name) {
  run("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj '/CN=" + name + "' -keyout " + q(key) + " -out " +
      q(cert) + " -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign");
}

void makeSigned(const fs::path& folder, const std::string& name, const std::string& extensions, const fs::path& caCert,
                const fs::path& caKey, const fs::path& cert, const fs::path& key) {
  const fs::path csr = folder / (name + ".csr"), ext = folder / (name + ".ext");
  writeTextFile(ext, extensions);
  run("openssl req -newkey rsa:2048 -nodes -subj '/CN=" + name + "' -keyout " + q(key) + " -out " + q(csr));
  run("openssl x509 -req -days 2 -in " + q(csr) + " -CA " + q(caCert) + " -CAkey " + q(caKey) +
      " -CAcreateserial -extfile " + q(ext) + " -out " + q(cert));
}
}  // namespace

TestCertificates makeTestCertificates(const fs::path& folder) {
  fs::create_directories(folder);
  TestCertificates c;
  c.caCert = folder / "ca.pem";
  c.caKey = folder / "ca.key";
  makeCa(c.caCert, c.caKey, "Delineate test CA");
  c.serverCert = folder / "server.pem";
  c.serverKey = folder / "server.key";
  makeSigned(folder, "server",
             "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n"
             "keyUsage=digitalSignature,keyEncipherment\n",
             c.caCert, c.caKey, c.serverCert, c.serverKey);
  c.serverCertAndKey = folder / "server-with-key.pem";
  writeTextFile(c.serverCertAndKey, readTextFile(c.serverCert) + readTextFile(c.serverKey));
  c.clientCert = folder / "client.pem";
  c.clientKey = folder / "client.key";
  makeSigned(folder, "client", "extendedKeyUsage=clientAuth,serverAuth\nkeyUsage=digitalSignature,keyEncipherment\n",
             c.caCert, c.caKey, c.clientCert, c.clientKey);
  c.otherCaCert = folder / "other-ca.pem";
  makeCa(c.otherCaCert, folder / "other-ca.key", "Another CA");
  c.strangerCert = folder / "stranger.pem";
  c.strangerKey = folder / "stranger.key";
  makeSigned(folder, "stranger", "extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature,keyEncipherment\n",
             c.otherCaCert, folder / "other-ca.key", c.strangerCert, c.strangerKey);
  return c;
}

}  // namespace delineate::test
