package dev.loam.storage.gcs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.api.gax.paging.Page;
import com.google.cloud.WriteChannel;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.BucketInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.Storage.BlobListOption;
import com.google.cloud.storage.Storage.BlobTargetOption;
import com.google.cloud.storage.Storage.BlobWriteOption;
import com.google.cloud.storage.StorageException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The test server is a fake, so its fidelity to GCS is tested too: preconditions, ranges, paging
 * and batches, through the real client where it can be and raw HTTP where the status matters.
 */
class GcsTestServerTest {
  static Storage client;
  static HttpClient http;
  String bucket;

  @BeforeAll
  static void open() {
    client = TestServers.rawClient();
    http = HttpClient.newHttpClient();
  }

  @AfterAll
  static void close() throws Exception {
    client.close();
  }

  @BeforeEach
  void freshBucket() {
    bucket = TestServers.freshBucket();
  }

  private HttpResponse<byte[]> send(HttpRequest.Builder b) throws Exception {
    return http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  private URI uri(String pathAndQuery) {
    return URI.create(TestServers.server().endpoint() + pathAndQuery);
  }

  @Test
  void aSecondCreateWithIfGenerationMatchZeroGets412AndTheFirstSurvives() {
    BlobInfo info = BlobInfo.newBuilder(bucket, "k").build();
    Blob first = client.create(info, "one".getBytes(UTF_8), BlobTargetOption.doesNotExist());
    assertThat(first.getGeneration()).isPositive();
    assertThatThrownBy(
            () -> client.create(info, "two".getBytes(UTF_8), BlobTargetOption.doesNotExist()))
        .isInstanceOfSatisfying(
            StorageException.class, e -> assertThat(e.getCode()).isEqualTo(412));
    assertThat(client.readAllBytes(BlobId.of(bucket, "k"))).isEqualTo("one".getBytes(UTF_8));
    // ifGenerationMatch=<current> is a compare-and-swap; a stale generation fails.
    Blob second =
        client.create(
            info, "two".getBytes(UTF_8), BlobTargetOption.generationMatch(first.getGeneration()));
    assertThat(second.getGeneration()).isGreaterThan(first.getGeneration());
    assertThatThrownBy(
            () ->
                client.create(
                    info,
                    "three".getBytes(UTF_8),
                    BlobTargetOption.generationMatch(first.getGeneration())))
        .isInstanceOfSatisfying(
            StorageException.class, e -> assertThat(e.getCode()).isEqualTo(412));
  }

  @Test
  void rangesAnswer206WithContentRangeAnd416WhenUnsatisfiable() throws Exception {
    byte[] data = new byte[100];
    for (int i = 0; i < data.length; i++) {
      data[i] = (byte) i;
    }
    client.create(BlobInfo.newBuilder(bucket, "r/x").build(), data);
    String path = "/download/storage/v1/b/" + bucket + "/o/r%2Fx?alt=media";
    HttpResponse<byte[]> mid =
        send(HttpRequest.newBuilder(uri(path)).header("Range", "bytes=10-19"));
    assertThat(mid.statusCode()).isEqualTo(206);
    assertThat(mid.headers().firstValue("Content-Range")).hasValue("bytes 10-19/100");
    assertThat(mid.body()).isEqualTo(Arrays.copyOfRange(data, 10, 20));
    HttpResponse<byte[]> pastEnd =
        send(HttpRequest.newBuilder(uri(path)).header("Range", "bytes=90-500"));
    assertThat(pastEnd.statusCode()).isEqualTo(206);
    assertThat(pastEnd.body()).isEqualTo(Arrays.copyOfRange(data, 90, 100));
    HttpResponse<byte[]> suffix =
        send(HttpRequest.newBuilder(uri(path)).header("Range", "bytes=-7"));
    assertThat(suffix.statusCode()).isEqualTo(206);
    assertThat(suffix.headers().firstValue("Content-Range")).hasValue("bytes 93-99/100");
    HttpResponse<byte[]> longSuffix =
        send(HttpRequest.newBuilder(uri(path)).header("Range", "bytes=-700"));
    assertThat(longSuffix.body()).isEqualTo(data);
    HttpResponse<byte[]> beyond =
        send(HttpRequest.newBuilder(uri(path)).header("Range", "bytes=100-"));
    assertThat(beyond.statusCode()).isEqualTo(416);
    assertThat(beyond.headers().firstValue("Content-Range")).hasValue("bytes */100");
    HttpResponse<byte[]> whole = send(HttpRequest.newBuilder(uri(path)));
    assertThat(whole.statusCode()).isEqualTo(200);
    assertThat(whole.headers().firstValue("x-goog-stored-content-length")).hasValue("100");
    HttpResponse<byte[]> missing =
        send(HttpRequest.newBuilder(uri("/download/storage/v1/b/" + bucket + "/o/nope?alt=media")));
    assertThat(missing.statusCode()).isEqualTo(404);
    // The same through the metadata path with alt=media.
    HttpResponse<byte[]> alt =
        send(
            HttpRequest.newBuilder(uri("/storage/v1/b/" + bucket + "/o/r%2Fx?alt=media"))
                .header("Range", "bytes=0-0"));
    assertThat(alt.statusCode()).isEqualTo(206);
    assertThat(alt.body()).containsExactly(0);
  }

  @Test
  void listingPagesAreSortedByUtf8BytesAndCoverEveryNameOnce() {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      names.add(String.format("p/%02d", i));
    }
    names.addAll(
        List.of(
            "p/a/1", "p/a/2", "p/b-", "p/b/1", "q/1", "p/\u00e9", "p/\uD83D\uDE00", "p/\uFFFD"));
    for (String n : names) {
      client.create(BlobInfo.newBuilder(bucket, n).build(), new byte[1]);
    }
    List<String> seen = new ArrayList<>();
    Page<Blob> page = client.list(bucket, BlobListOption.prefix("p/"), BlobListOption.pageSize(4));
    int pages = 1;
    while (true) {
      assertThat(page.getValues()).hasSizeLessThanOrEqualTo(4);
      page.getValues().forEach(b -> seen.add(b.getName()));
      if (!page.hasNextPage()) {
        break;
      }
      page = page.getNextPage();
      pages++;
    }
    List<String> expected =
        names.stream()
            .filter(n -> n.startsWith("p/"))
            .sorted((a, b) -> Arrays.compareUnsigned(a.getBytes(UTF_8), b.getBytes(UTF_8)))
            .collect(Collectors.toList());
    assertThat(seen).containsExactlyElementsOf(expected);
    assertThat(pages).isEqualTo((expected.size() + 3) / 4);
    // startOffset is inclusive, endOffset exclusive.
    List<String> window = new ArrayList<>();
    client
        .list(bucket, BlobListOption.startOffset("p/05"), BlobListOption.endOffset("p/08"))
        .getValues()
        .forEach(b -> window.add(b.getName()));
    assertThat(window).containsExactly("p/05", "p/06", "p/07");
  }

  @Test
  void delimiterListingsReportEachPrefixOnceAcrossPages() {
    for (String n : List.of("d/a", "d/b/1", "d/b/2", "d/b/3", "d/c", "d/e/1", "d/f")) {
      client.create(BlobInfo.newBuilder(bucket, n).build(), new byte[1]);
    }
    List<String> seen = new ArrayList<>();
    Page<Blob> page =
        client.list(
            bucket,
            BlobListOption.prefix("d/"),
            BlobListOption.delimiter("/"),
            BlobListOption.pageSize(2));
    while (true) {
      page.getValues().forEach(b -> seen.add(b.isDirectory() ? "DIR " + b.getName() : b.getName()));
      if (!page.hasNextPage()) {
        break;
      }
      page = page.getNextPage();
    }
    assertThat(seen).containsExactly("d/a", "DIR d/b/", "d/c", "DIR d/e/", "d/f");
  }

  @Test
  void chunkedResumableUploadHonoursThePreconditionAtFinalization() throws Exception {
    BlobInfo info = BlobInfo.newBuilder(bucket, "big").build();
    byte[] data = new byte[3 * 256 * 1024 + 17];
    Arrays.fill(data, (byte) 7);
    // Open two sessions before either finishes: both pass the check at initiation, only the
    // first to finalize may win.
    WriteChannel a = client.writer(info, BlobWriteOption.doesNotExist());
    WriteChannel b = client.writer(info, BlobWriteOption.doesNotExist());
    a.setChunkSize(256 * 1024);
    b.setChunkSize(256 * 1024);
    b.write(ByteBuffer.wrap(new byte[300 * 1024])); // b's session starts (one chunk sent)
    a.write(ByteBuffer.wrap(data));
    a.close();
    assertThat(client.readAllBytes(BlobId.of(bucket, "big"))).isEqualTo(data);
    assertThatThrownBy(b::close).hasStackTraceContaining("412");
    assertThat(client.readAllBytes(BlobId.of(bucket, "big"))).isEqualTo(data);
    assertThat(TestServers.server().requestLog())
        .anyMatch(
            l -> l.startsWith("PUT /upload/storage/v1/b/" + bucket + "/o?uploadType=resumable"));
  }

  @Test
  void deleteAnswers204Then404AndBatchesAreLimitedToAHundredParts() throws Exception {
    client.create(BlobInfo.newBuilder(bucket, "x").build(), new byte[1]);
    HttpResponse<byte[]> first =
        send(HttpRequest.newBuilder(uri("/storage/v1/b/" + bucket + "/o/x")).DELETE());
    assertThat(first.statusCode()).isEqualTo(204);
    HttpResponse<byte[]> again =
        send(HttpRequest.newBuilder(uri("/storage/v1/b/" + bucket + "/o/x")).DELETE());
    assertThat(again.statusCode()).isEqualTo(404);
    StringBuilder body = new StringBuilder();
    for (int i = 0; i < GcsTestServer.MAX_BATCH_PARTS + 1; i++) {
      body.append("--b\r\nContent-Type: application/http\r\nContent-ID: <")
          .append(i)
          .append(">\r\n\r\n");
      body.append("DELETE /storage/v1/b/")
          .append(bucket)
          .append("/o/y")
          .append(i)
          .append(" HTTP/1.1\r\n\r\n\r\n");
    }
    body.append("--b--\r\n");
    HttpResponse<byte[]> tooMany =
        send(
            HttpRequest.newBuilder(uri("/batch/storage/v1"))
                .header("Content-Type", "multipart/mixed; boundary=b")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())));
    assertThat(tooMany.statusCode()).isEqualTo(400);
    // Through the client: 250 deletes are split into batches of 100; missing objects are false.
    client.create(BlobInfo.newBuilder(bucket, "y7").build(), new byte[1]);
    List<BlobId> ids =
        IntStream.range(0, 250)
            .mapToObj(i -> BlobId.of(bucket, "y" + i))
            .collect(Collectors.toList());
    List<Boolean> results = client.delete(ids);
    assertThat(results).hasSize(250).containsOnlyOnce(true);
    assertThat(client.get(BlobId.of(bucket, "y7"))).isNull();
  }

  @Test
  void creatingABucketTwiceConflicts() {
    String name = "made-by-client-" + bucket;
    client.create(BucketInfo.of(name));
    assertThatThrownBy(() -> client.create(BucketInfo.of(name)))
        .isInstanceOfSatisfying(
            StorageException.class, e -> assertThat(e.getCode()).isEqualTo(409));
  }
}
