console.log('quickstart');
