#pragma once
// Certificates for the TLS tests, made with the openssl command line in a scratch folder: a CA, a server
// certificate for 127.0.0.1 (subjectAltName IP and DNS localhost), a client certificate, and a second CA that
// signed neither (the "wrong CA") with a client certificate of its own (the "stranger").

#include <filesystem>
#include <string>

namespace delineate::test {

struct TestCertificates {
  std::filesystem::path caCert, caKey;
  std::filesystem::path serverCert, serverKey, serverCertAndKey;  // the last: both in one PEM (Orthanc's HTTPS)
  std::filesystem::path clientCert, clientKey;
  std::filesystem::path otherCaCert;
  std::filesystem::path strangerCert, strangerKey;  // a client certificate the other CA signed
};

// Throws std::runtime_error with openssl's output when a step fails.
TestCertificates makeTestCertificates(const std::filesystem::path& folder);

}  // namespace delineate::test
