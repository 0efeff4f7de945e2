// Starts Apache Iceberg's reference REST catalog (RESTCatalogAdapter over a JdbcCatalog in
// SQLite) on 127.0.0.1 only, for pipec's REST catalog client tests.
// Usage: java PipecRestCatalog <port> <warehouse-uri> <sqlite-file>
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;

public class PipecRestCatalog {
  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    Map<String, String> props = new HashMap<>();
    props.put(CatalogProperties.URI, "jdbc:sqlite:" + args[2]);
    props.put(CatalogProperties.WAREHOUSE_LOCATION, args[1]);
    props.put("jdbc.schema-version", "V1");
    JdbcCatalog catalog = new JdbcCatalog();
    catalog.setConf(new Configuration());
    catalog.initialize("rest_backend", props);

    ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
    context.addServlet(new ServletHolder(new RESTCatalogServlet(new RESTCatalogAdapter(catalog))), "/*");
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(port);
    server.addConnector(connector);
    server.setHandler(context);
    server.start();
    System.out.println("pipec iceberg rest catalog listening on 127.0.0.1:" + port);
    server.join();
  }
}
