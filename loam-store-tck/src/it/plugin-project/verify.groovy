// Every case of the kit ran in the plugin's build, and none failed or was skipped: the kit needs no
// dependency besides loam-store-tck.
def counts(String testClass) {
  def report = new File(basedir, "target/surefire-reports/TEST-${testClass}.xml")
  assert report.isFile() : "no surefire report at ${report}"
  def head = (report.text =~ /<testsuite [^>]*>/)[0]
  def attr = { name -> ((head =~ /\s${name}="(\d+)"/)[0][1]) as int }
  return [tests: attr('tests'), failures: attr('failures'), errors: attr('errors'), skipped: attr('skipped')]
}
def kit = counts('com.example.dirstore.DirStoreContractTest')
assert kit == [tests: 46, failures: 0, errors: 0, skipped: 0] : "the kit's run: ${kit}"
def faults = counts('com.example.dirstore.CreateOnceTest')
assert faults == [tests: 3, failures: 0, errors: 0, skipped: 0] : "the fault tests' run: ${faults}"
return true
